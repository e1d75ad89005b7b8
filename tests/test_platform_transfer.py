"""leave-one-platform-out: the protocol's splits and masks, the reference transfer predictors against
synthetic multi-platform tables whose true relations are known, and the CLI's refusals."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from perfgraphs.baselines.transfer import RatioTransfer, SourceModelTransfer
from perfgraphs.data.platforms import LabelPlatform
from perfgraphs.data.splits import PROTOCOLS, UnknownSplitError, platform_transfer_shots
from perfgraphs.evaluation.platform_transfer import (STATIC_COLUMNS, TransferProtocolError, table_from_rows,
                                                     transfer_task)


def _platform(name: str, device: str, kind: str = "gpu", layout: str = "nchw", compiled: bool = False,
              torch: str = "2.4") -> LabelPlatform:
    return LabelPlatform(name=name, device=device, device_kind=kind, precision="amp" if kind == "gpu" else "fp32",
                    layout=layout, framework="torch", framework_version=torch, torch_version=torch,
                    cuda_version="12.4" if kind == "gpu" else None, compiled=compiled, source="test",
                    source_files=(f"{name}.csv",))


def synthetic_table(labels: dict[str, np.ndarray], platforms, n: int, seed: int = 0, families=None,
                    sizes_per_arch: int = 1):
    """n rows (architectures × input sizes), static features from a seeded generator."""
    rng = np.random.default_rng(seed)
    archs = n // sizes_per_arch
    ids = [f"timm:arch{a}@{224 + 32 * s}" for a in range(archs) for s in range(sizes_per_arch)]
    rows = {"structure_id": ids, "sample_id": [f"{i}#b1" for i in ids],
            "structure_hash": [f"h{i}" for i in range(n)],
            "family": families if families is not None else ["fam_a" if i % 2 else "fam_b" for i in range(n)]}
    for c in STATIC_COLUMNS:
        rows[c] = rng.integers(1, 1000, n).astype(float)
    for p in platforms:
        rows[f"latency_per_sample_ms__{p.name}"] = labels[p.name].tolist()
    return table_from_rows(rows, "latency_per_sample_ms", tuple(platforms))


@pytest.fixture()
def four_platforms():
    rng = np.random.default_rng(1)
    n = 120
    base = np.exp(rng.uniform(-2, 4, n))
    platforms = [_platform("gpu-a", "rtx3090"), _platform("gpu-a-nhwc", "rtx3090", layout="nhwc"),
                 _platform("gpu-b", "rtx4090"), _platform("cpu-c", "i9", kind="cpu")]
    labels = {"gpu-a": base, "gpu-a-nhwc": base * np.exp(rng.normal(0, 0.05, n)),
              "gpu-b": base * 0.5, "cpu-c": base ** 1.2 * 30}
    labels["cpu-c"][:10] = np.nan  # a platform that does not label everything
    return synthetic_table(labels, platforms, n, sizes_per_arch=2), labels


# -- the protocol -------------------------------------------------------------------------------------


def test_protocol_is_registered_with_its_shots_variants_and_draws():
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES
    from perfgraphs.registry import get_dataset

    spec = PROTOCOLS["leave-one-platform-out"]
    assert spec["shots"] == (8, 16, 32, 64, 128) and len(spec["seeds"]) == 5
    assert {"known-models", "unseen-models"} <= set(spec["variants"])
    assert any("leave-one-platform-out" in c.split_protocols for c in get_dataset("nnlqp").configs)
    for reference in TRANSFER_BASELINES.values():
        assert set(reference.variants) <= set(spec["variants"])


def test_shots_are_whole_groups_exact_deterministic_and_differ_by_draw():
    groups = {f"g{i}": [f"g{i}@a", f"g{i}@b"] if i % 3 == 0 else [f"g{i}@a"] for i in range(60)}
    a = platform_transfer_shots(groups, "p", 16, 0)
    assert len(a["few_shot"]) == 16 and platform_transfer_shots(groups, "p", 16, 0) == a
    assert set(a["few_shot"]).isdisjoint(a["test"])
    assert set(a["few_shot"]) | set(a["test"]) == {i for ids in groups.values() for i in ids}
    for ids in groups.values():  # a group is never split between shots and test
        assert set(ids) <= set(a["few_shot"]) or set(ids) <= set(a["test"])
    assert platform_transfer_shots(groups, "p", 16, 1)["few_shot"] != a["few_shot"]
    assert platform_transfer_shots(groups, "q", 16, 0)["few_shot"] != a["few_shot"]  # the platform seeds too
    with pytest.raises(UnknownSplitError):
        platform_transfer_shots(groups, "p", 16, 5)  # five draws: 0-4
    with pytest.raises(UnknownSplitError):
        platform_transfer_shots({"g": ["x"]}, "p", 8, 0)


def test_known_models_hides_only_the_held_out_platforms_non_shots(four_platforms):
    table, _ = four_platforms
    task = transfer_task(table, "gpu-b", 16, 2, "known-models")
    p = table.column("gpu-b")
    assert np.flatnonzero(np.isfinite(task.table.labels[:, p])).tolist() == task.shot_rows.tolist()
    assert len(task.shot_rows) == 16 and len(task.test_rows) == len(table.ids) - 16
    np.testing.assert_array_equal(task.y_test, table.labels[task.test_rows, p])
    others = [j for j in range(len(table.platforms)) if j != p]
    np.testing.assert_array_equal(task.table.labels[:, others], table.labels[:, others])  # NaN-equal


def test_unseen_models_leaves_no_test_architecture_labelled_anywhere(four_platforms):
    table, _ = four_platforms
    task = transfer_task(table, "gpu-b", 16, 0, "unseen-models")
    test_groups = {table.groups[i] for i in task.test_rows}
    hidden = [i for i, g in enumerate(table.groups) if g in test_groups]
    assert not np.isfinite(task.table.labels[hidden]).any()
    # each architecture's two input sizes form one group: the other size of a test row is hidden too
    assert len(hidden) == len(task.test_rows)
    # the shots keep their labels on every source: they are labelled architectures, not test ones
    assert np.isfinite(task.table.labels[task.shot_rows][:, table.column("gpu-a")]).all()
    # the held-out platform keeps exactly its shots
    assert np.isfinite(task.table.labels[:, table.column("gpu-b")]).sum() == 16


def test_other_devices_variant_drops_the_held_out_cards_other_files(four_platforms):
    table, _ = four_platforms
    task = transfer_task(table, "gpu-a", 16, 0, "known-models-other-devices")
    assert not np.isfinite(task.table.labels[:, table.column("gpu-a-nhwc")]).any()
    assert np.isfinite(task.table.labels[:, table.column("gpu-b")]).all()


@pytest.mark.parametrize("variant,shots,platform", [("bogus", 16, "gpu-b"), ("known-models", 7, "gpu-b"),
                                                      ("known-models", 16, "no-such-platform")])
def test_bad_requests_are_refused(four_platforms, variant, shots, platform):
    table, _ = four_platforms
    with pytest.raises(TransferProtocolError):
        transfer_task(table, platform, shots, 0, variant)


# -- the ratio rule ----------------------------------------------------------------------------------------


def test_ratio_rule_picks_the_source_that_explains_the_shots_and_recovers_the_ratio(four_platforms):
    table, labels = four_platforms
    task = transfer_task(table, "gpu-b", 16, 0, "known-models")
    rule = RatioTransfer().fit(task.table, "gpu-b")
    best = rule.maps_[0]
    assert best.source == "gpu-a"  # gpu-b = 0.5 × gpu-a exactly; gpu-a-nhwc carries 5 % noise
    assert best.loo_mape == pytest.approx(0.0, abs=1e-12)
    assert np.exp(best.offset) == pytest.approx(0.5, rel=1e-12) and best.slope == pytest.approx(1.0)
    assert rule.correction_kind_ == "none"  # nothing left to correct: no correction is kept
    np.testing.assert_allclose(rule.predict(task.table, task.test_rows), task.y_test, rtol=1e-10)


def test_ratio_rule_family_correction_is_hand_computable():
    rng = np.random.default_rng(3)
    n = 200
    base = np.exp(rng.uniform(-1, 3, n))
    families = ["convs" if i % 4 == 0 else "attention" for i in range(n)]
    factor = np.where(np.array(families) == "convs", 1.5, 1.0)  # a 50 % slower family on the new card
    platforms = [_platform("src", "rtx3090"), _platform("new", "rtx4090")]
    table = synthetic_table({"src": base, "new": 2.0 * base * factor}, platforms, n, families=families)
    task = transfer_task(table, "new", 64, 1, "known-models")
    rule = RatioTransfer(maps=("ratio",), family_shrinkage=3.0).fit(task.table, "new")
    assert rule.correction_kind_ == "family"
    # by hand: the median log-ratio over the shots is log 2 (convs are a quarter, a minority); the
    # family offset is the sum of its residuals over (its shots + 3 pseudo-shots)
    shot_fams = np.array(families)[task.shot_rows]
    n_conv = int((shot_fams == "convs").sum())
    assert np.exp(rule.maps_[0].offset) == pytest.approx(2.0, rel=1e-12)
    expected_conv = n_conv * np.log(1.5) / (n_conv + 3.0)
    pred = rule.predict(task.table, task.test_rows)
    test_fams = np.array(families)[task.test_rows]
    want = 2.0 * base[task.test_rows] * np.where(test_fams == "convs", np.exp(expected_conv), 1.0)
    np.testing.assert_allclose(pred, want, rtol=1e-10)


def test_ratio_rule_chooses_an_affine_map_where_the_ratio_grows_with_size():
    rng = np.random.default_rng(4)
    n = 150
    base = np.exp(rng.uniform(-2, 5, n))
    platforms = [_platform("src", "rtx3090"), _platform("new", "i9", kind="cpu")]
    table = synthetic_table({"src": base, "new": 3.0 * base ** 0.8}, platforms, n)
    task = transfer_task(table, "new", 32, 0, "known-models")
    rule = RatioTransfer().fit(task.table, "new")
    assert rule.maps_[0].kind == "affine"
    assert rule.maps_[0].slope == pytest.approx(0.8, rel=1e-9)
    assert np.exp(rule.maps_[0].offset) == pytest.approx(3.0, rel=1e-9)


def test_ratio_rule_falls_back_to_the_next_source_where_the_best_has_no_label(four_platforms):
    table, labels = four_platforms
    task = transfer_task(table, "gpu-b", 16, 0, "known-models")
    masked = task.table.labels.copy()
    test = task.test_rows[:5]
    masked[test, table.column("gpu-a")] = np.nan
    from dataclasses import replace

    table2 = replace(task.table, labels=masked)
    rule = RatioTransfer().fit(table2, "gpu-b")
    pred = rule.predict(table2, test)
    # the next source is gpu-a-nhwc (5 % noise): the predictions are close, not exact
    np.testing.assert_allclose(pred, labels["gpu-b"][test], rtol=0.25)
    assert rule.unmapped_ == 0


# -- the stronger adapter ------------------------------------------------------------------------------------


def test_source_model_recovers_a_descriptor_relationship_on_unseen_architectures():
    """log latency = log MACs + a per-platform constant that the descriptor (GPU vs CPU) sets and
    the shots refine: the static model must learn the MACs law from the sources and the new
    platform's constant from its shots."""
    rng = np.random.default_rng(5)
    n = 240
    platforms = [_platform("g1", "rtx3090"), _platform("g2", "rtx4090"), _platform("c1", "i9", kind="cpu"),
                 _platform("g3", "a100")]
    table0 = synthetic_table({p.name: np.ones(n) for p in platforms}, platforms, n, seed=6)
    macs = table0.static[:, STATIC_COLUMNS.index("total_macs")]
    const = {"g1": 0.01, "g2": 0.006, "c1": 0.5, "g3": 0.004}
    labels = {name: c * macs * np.exp(rng.normal(0, 0.01, n)) for name, c in const.items()}
    labels["g3"][100:] = np.nan  # the new card labels 100 architectures: the others train the sources
    table = synthetic_table(labels, platforms, n, seed=6)
    task = transfer_task(table, "g3", 32, 0, "unseen-models")
    model = SourceModelTransfer(use_labels=False, max_iter=200).fit(task.table, "g3")
    pred = model.predict(task.table, task.test_rows)
    mape = np.mean(np.abs(pred - task.y_test) / task.y_test) * 100
    assert model.adapter_ in ("model+offset", "model-affine")  # g3's constant is nobody's: the shots set it
    assert mape < 8.0, mape
    # without the shots' correction the model alone is far off (it has never seen g3's constant)
    raw = np.exp(model.model_.predict(model._features(task.table, task.test_rows, task.table.column("g3"),
                                                      task.table.column("g3"))))
    assert np.mean(np.abs(raw - task.y_test) / task.y_test) * 100 > 2 * mape


# -- the CLI ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra,needle", [(["--variant", "bogus"], "variant"), (["--shots", "7"], "K in"),
                                          (["--seeds", "9"], "draws"), (["--baseline", "nope"], "unknown transfer baseline")])
def test_cli_bad_input_is_one_line_and_non_zero(extra, needle):
    args = ["--dataset", "nnlqp", "--config", "timm-platforms", "--target", "latency_per_sample_ms",
            "--baseline", "ratio-transfer", "--protocol", "leave-one-platform-out"]
    if "--baseline" in extra:
        args = args[:6] + args[8:]
    env = {k: v for k, v in os.environ.items() if k != "PERFGRAPHS_EXTERNAL_DIR"}
    out = subprocess.run([sys.executable, "-m", "perfgraphs", "benchmark", *args, *extra],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in out.stderr, out.stderr


# -- on the real data (needs timm's published files) -----------------------------------------------------


@pytest.mark.skipif(not os.environ.get("PERFGRAPHS_EXTERNAL_DIR"),
                    reason="needs timm's benchmark files (PERFGRAPHS_EXTERNAL_DIR) to build perfgraphs/nnlqp")
def test_ratio_rule_on_a_real_gpu_platform():
    from perfgraphs.evaluation.platform_transfer import load_platform_table
    from perfgraphs.leaderboard.transfer_runner import TransferSpec, run_transfer
    from perfgraphs.registry import task

    board = task("perfgraphs/nnlqp", "timm-platforms", "latency_per_sample_ms")
    table, _ = load_platform_table(board)
    gpu = next(p.name for p in table.platforms if p.device_kind == "gpu")
    unseen = transfer_task(table, gpu, 32, 0, "unseen-models")
    test_groups = {table.groups[i] for i in unseen.test_rows}
    assert not np.isfinite(unseen.table.labels[[i for i, g in enumerate(table.groups) if g in test_groups]]).any()
    res = run_transfer(TransferSpec(board, "ratio-transfer", "known-models", (32,), (0,), (gpu,)), table=table)
    assert res.rows[0]["n"] > 500 and res.rows[0]["mape_pct"] < 20


def test_transfer_predictors_are_scikit_learn_estimators():
    from sklearn.base import clone

    from perfgraphs.baselines.catalog import TRANSFER_BASELINES
    from perfgraphs.baselines.transfer import PROFILE_CORRECTIONS

    rule = RatioTransfer(maps=("ratio",), corrections=PROFILE_CORRECTIONS, family_shrinkage=5.0)
    assert clone(rule).get_params() == rule.get_params()
    assert clone(SourceModelTransfer(max_iter=7)).get_params()["max_iter"] == 7
    for reference in TRANSFER_BASELINES.values():  # every registered reference builds an estimator
        assert clone(reference.make(0)).get_params() == reference.make(0).get_params()


def test_profile_correction_learns_what_another_card_pair_shows():
    """The new card (rtx4090, nhwc) combines two per-architecture effects no single source carries:
    the 4090's (seen on gpu-b, nchw) and the layout's (seen between gpu-a and gpu-a-nhwc). The ratio
    rule maps one source and misses the other effect; the profile correction (a ridge on the
    architecture's labels across the sources) composes them: log new = log gpu-b + log gpu-a-nhwc
    − log gpu-a."""
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES

    rng = np.random.default_rng(9)
    n = 300
    base = np.exp(rng.uniform(-2, 4, n))
    layout = np.where(rng.random(n) < 0.3, 1.8, 1.0)  # a third of the graphs slow down in nhwc
    device = np.exp(rng.normal(0, 0.25, n))  # the 4090's per-architecture speed-up varies
    noise = lambda: np.exp(rng.normal(0, 0.01, n))  # noqa: E731
    platforms = [_platform("gpu-a", "rtx3090"), _platform("gpu-a-nhwc", "rtx3090", layout="nhwc"),
                 _platform("gpu-b", "rtx4090"), _platform("gpu-b-nhwc", "rtx4090", layout="nhwc")]
    labels = {"gpu-a": base * noise(), "gpu-a-nhwc": base * layout * noise(), "gpu-b": 0.6 * base * device * noise(),
              "gpu-b-nhwc": 0.6 * base * device * layout * noise()}
    table = synthetic_table(labels, platforms, n)
    task = transfer_task(table, "gpu-b-nhwc", 64, 0, "known-models")
    scores = {}
    for name in ("ratio-transfer", "profile-transfer"):
        pred = TRANSFER_BASELINES[name].make(0).fit(task.table, "gpu-b-nhwc").predict(task.table, task.test_rows)
        scores[name] = np.mean(np.abs(pred - task.y_test) / task.y_test) * 100
    assert scores["ratio-transfer"] > 8 and scores["profile-transfer"] < 4, scores


def test_a_profile_correction_needs_a_gain_beyond_the_shots_noise():
    """Leave-one-out predictions on 40 shots: the profile correction is lower on average than the
    rule's own choice in both cases; where its gain is one lucky shot it stays with the rule, where
    every shot gains a little it is taken."""
    from perfgraphs.baselines.transfer import RatioTransfer

    rng = np.random.default_rng(4)
    y = rng.normal(0, 1, 40)
    rule = y + rng.choice([-0.05, 0.05], 40)  # 5 % off on every shot
    lucky = rule.copy()
    lucky[0] = y[0]  # one shot exact, the rest as the rule: the mean error drops by 1/40 of 5 %
    steady = y + 0.9 * (rule - y)  # every shot 10 % closer
    kinds = ["none", "profile-ridge"]
    err = lambda pred: float(np.mean(np.abs(np.expm1(pred - y))))  # noqa: E731
    assert err(lucky) < err(rule) and err(steady) < err(rule)
    assert RatioTransfer._choose_correction(kinds, {"none": rule, "profile-ridge": lucky}, y) == "none"
    assert RatioTransfer._choose_correction(kinds, {"none": rule, "profile-ridge": steady}, y) == "profile-ridge"
    # the rule's own corrections compete as before: least error wins, no margin
    assert RatioTransfer._choose_correction(["none", "family"], {"none": rule, "family": lucky}, y) == "family"


def _three_registered_gpus(seed: int, noise: float, power: float = 1.0, n: int = 90):
    """(names, table, board): three of the nnlqp config's RTX platforms (the Evaluator scores real
    names), the second 1.5x the first with log-normal ``noise``, the third 0.7 x the first ** power."""
    from perfgraphs.registry import get_dataset, task

    ds = get_dataset("nnlqp")
    cfg = next(c for c in ds.configs if "leave-one-platform-out" in c.split_protocols)
    names = [p for p in cfg.platforms if p.startswith("timm-rtx")][:3]
    rng = np.random.default_rng(seed)
    base = np.exp(rng.uniform(-2, 3, n))
    platforms = [_platform(name, "rtx3090" if "3090" in name else "rtx4090") for name in names]
    labels = {names[0]: base, names[1]: 1.5 * base * np.exp(rng.normal(0, noise, n)), names[2]: 0.7 * base ** power}
    return names, synthetic_table(labels, platforms, n), task(ds.name, cfg.name, "latency_per_sample_ms")


def test_a_run_becomes_tables_and_leaderboard_records_per_k(tmp_path):
    """Scored by the registry's Evaluator (real platform names of the config), summarised with
    intervals over draws, written as tables and as records the site shows on a board of their own."""
    from perfgraphs.leaderboard.records.results import append_entry, read_entries
    from perfgraphs.leaderboard.site.pages import build_site
    from perfgraphs.leaderboard.transfer_runner import TransferSpec, run_transfer, to_entries, write_tables
    from perfgraphs.registry import get_dataset

    n = 90
    names, table, board = _three_registered_gpus(2, noise=0.02, n=n)
    ds = get_dataset("nnlqp")
    spec = TransferSpec(board, "ratio-transfer", "known-models", (8, 16), (0, 1, 2, 3, 4))
    res = run_transfer(spec, table=table, content_hash="c0ffee")  # five draws: a record needs five seeds
    assert len(res.rows) == 3 * 2 * 5 and all(r["n"] == n - r["shots"] for r in res.rows)
    exact = [s for s in res.summary() if s["platform"] == names[2]]  # 0.7 × names[0], exactly
    assert all(s["mape_pct"] == pytest.approx(0.0, abs=1e-9) and s["acc_10_pct"] == 100.0 for s in exact)
    mean = res.mean_over_platforms(16, gpu_only=True)
    per_draw = [np.mean([r["mape_pct"] for r in res.rows if r["shots"] == 16 and r["draw"] == d]) for d in range(5)]
    assert mean["mape_pct"] == pytest.approx(np.mean(per_draw))
    assert mean["mape_pct_ci95"] == pytest.approx(1.96 * np.std(per_draw, ddof=1) / np.sqrt(5))
    csv_path, md_path = write_tables([res], tmp_path, "t", "cmd")
    assert "K = 16" in md_path.read_text() and csv_path.read_text().count("\n") > 6
    entries = to_entries(res)
    assert [e.protocol for e in entries] == ["leave-one-platform-out/known-models/K8",
                                             "leave-one-platform-out/known-models/K16"]
    assert [s["seed"] for s in entries[1].per_seed] == [0, 1, 2, 3, 4]
    assert entries[1].dataset_content_hash == "c0ffee"
    for e in entries:
        append_entry(e, root=tmp_path)
    assert len(read_entries(ds.name, tmp_path)) == 2
    site = build_site(tmp_path / "site", tmp_path)
    assert "leave-one-platform-out/known-models/K16" in site.read_text()


def test_a_stopped_run_resumes_from_the_fits_it_kept():
    """A long run (the graph network: hours) is kept after every fit; given those rows back it fits
    only the rest, K by K, and ends with the rows a run from scratch gives."""
    from perfgraphs.leaderboard.transfer_runner import TransferSpec, run_transfer

    _, table, board = _three_registered_gpus(3, noise=0.05, power=1.1)
    spec = TransferSpec(board, "ratio-transfer", "known-models", (8, 16), (0, 1, 2))
    order = []
    full = run_transfer(spec, table=table, progress=order.append)
    assert [r["shots"] for r in order] == sorted(r["shots"] for r in order)  # K outermost
    kept = [dict(r) for r in full.rows[:5]]
    new = []
    resumed = run_transfer(spec, table=table, progress=new.append, done=kept)
    assert len(new) == len(full.rows) - 5 and not {(r["platform"], r["shots"], r["draw"]) for r in new} & \
        {(r["platform"], r["shots"], r["draw"]) for r in kept}

    def scores(rows):
        return sorted((r["platform"], r["shots"], r["draw"], r["mape_pct"], r["n"]) for r in rows)
    assert scores(resumed.rows) == scores(full.rows)
    assert resumed.fit_seconds == pytest.approx(sum(r["fit_seconds"] for r in resumed.rows))
    # control: rows of another spec's draws are not taken as done
    other = run_transfer(spec, table=table, done=[{**r, "draw": 9} for r in kept])
    assert len(other.rows) == len(full.rows)


def test_ratio_rule_uses_the_best_covering_source_when_none_covers_most_shots():
    rng = np.random.default_rng(8)
    n = 100
    base = np.exp(rng.uniform(-1, 3, n))
    partial = 2.0 * base
    partial[::2] = np.nan  # labels only half of the architectures
    platforms = [_platform("src", "rtx3090"), _platform("new", "rtx4090")]
    table = synthetic_table({"src": partial, "new": base}, platforms, n)
    task = transfer_task(table, "new", 32, 0, "known-models")
    rule = RatioTransfer().fit(task.table, "new")
    assert rule.maps_[0].coverage < 0.8 * 32 and np.exp(rule.maps_[0].offset) == pytest.approx(0.5)
    labelled = task.test_rows[np.isfinite(partial[task.test_rows])]
    np.testing.assert_allclose(rule.predict(task.table, labelled), base[labelled], rtol=1e-10)
