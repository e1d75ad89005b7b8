"""``perfgraphs/llm`` / ``cpu-torch-fp32``: our encoder measurements as a tabular config.

Ground truth is independent of the builder: the measured values are read straight from the
collector's Parquet files in the checkout; model facts come from the shipped JSON configurations
and closed-form parameter / MAC counts of the three encoder designs (BERT-like with absolute
positions, DistilBERT, DeBERTa-v3 with relative positions), written out here; hardware facts from
the committed hardware probe. The build reads a small snapshot of the committed rows (one
measured configuration per model), so the test stays fast however far the campaign has got.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs import paths
from perfgraphs.data import llm_cpu
from perfgraphs.data.build import REPO_ROOT
from perfgraphs.data.llm_cpu import LLMCPUBuildError, build_encoder_config, encoder_facts, encoder_rows
from perfgraphs.data.tabular import stratified_folds
from perfgraphs.registry import get_dataset

PLATFORM = "cpu-torch-fp32"
REPO_MEASUREMENTS = REPO_ROOT / "data" / "measurements" / "llm-cpu"
HF_CONFIGS = REPO_ROOT / "perfgraphs" / "graph" / "hf_configs"


def _shipped_config(model_id: str) -> dict:
    return json.loads((HF_CONFIGS / (model_id.replace("/", "__") + ".json")).read_text())


def _dims(c: dict) -> tuple[int, int, int, int]:
    """(layers, hidden, feed-forward width, vocabulary) of a shipped configuration."""
    if c["model_type"] == "distilbert":
        return c["n_layers"], c["dim"], c["hidden_dim"], c["vocab_size"]
    return c["num_hidden_layers"], c["hidden_size"], c["intermediate_size"], c["vocab_size"]


def closed_form_params(c: dict) -> int:
    """Embeddings (word, absolute positions unless relative, token types) + LayerNorm; per layer
    Q/K/V/O, two LayerNorms and the feed-forward pair; DeBERTa's relative-position table + its
    LayerNorm; BERT/RoBERTa's pooler."""
    L, H, I, V = _dims(c)
    positions = c["max_position_embeddings"] if c.get("position_biased_input", True) else 0
    types = c.get("type_vocab_size", 0)
    total = (V + positions + types) * H + 2 * H
    total += L * (4 * (H * H + H) + (H * I + I) + (I * H + H) + 2 * 2 * H)
    if c["model_type"] == "deberta-v2":
        total += 2 * c["position_buckets"] * H + 2 * H
    if c["model_type"] in ("bert", "roberta", "xlm-roberta"):
        total += H * H + H
    return total


def closed_form_gmacs(c: dict, seq: int, batch: int) -> float:
    """Matrix-product MACs of one forward: per token Q/K/V/O + feed-forward, per sequence the
    two s x s attention products (DeBERTa also content-to-position and position-to-content
    against 2 x buckets relative positions, whose key/query projections run once per forward);
    the pooler's dense layer per sequence."""
    L, H, I, _ = _dims(c)
    per_sequence = seq * (4 * H * H + 2 * H * I) + 2 * seq * seq * H
    per_forward = 0
    if c["model_type"] == "deberta-v2":
        span = 2 * c["position_buckets"]
        per_sequence += 2 * seq * span * H
        per_forward = 2 * span * H * H
    pooler = H * H if c["model_type"] in ("bert", "roberta", "xlm-roberta") else 0
    return (L * (batch * per_sequence + per_forward) + batch * pooler) / 1e9


def repo_rows() -> dict[str, dict]:
    """measurement_id → row of every Parquet file of the platform, read directly; a running
    campaign may compact parts into a shard meanwhile, so a vanished file means "list again"."""
    folder = REPO_MEASUREMENTS / PLATFORM
    for _ in range(5):
        try:
            files = sorted(folder.glob("shard-*.parquet")) + sorted((folder / "parts").glob("*.parquet"))
            return {r["measurement_id"]: r for f in files for r in pq.read_table(f).to_pylist()}
        except OSError:
            continue
    raise AssertionError(f"cannot read {folder}")


def latest_ok(rows: dict[str, dict]) -> dict[str, dict]:
    """key → the configuration's row as the collector defines it: a successful attempt over a
    failed one, then the most recent; only keys whose chosen row is ok."""
    rank = {"ok": 0, "oom": 1, "error": 2}
    best: dict[str, dict] = {}
    for r in sorted(rows.values(), key=lambda r: r["measured_at_utc"] or ""):
        old = best.get(r["key"])
        if old is None or rank[r["status"]] <= rank[old["status"]]:
            best[r["key"]] = r
    return {k: r for k, r in best.items() if r["status"] == "ok" and r["protocol"] == "llm-cpu"}


def make_snapshot(root: Path, rows: list[dict], probe: dict | None = None) -> Path:
    """A measurement folder holding ``rows`` as the collector's own store writes them."""
    from perfgraphs.collect.store import MeasurementStore

    store = MeasurementStore(root)
    for r in rows:
        store.append(r)
    (root / PLATFORM).mkdir(parents=True, exist_ok=True)
    if probe is not None:
        (root / PLATFORM / "hardware.json").write_text(json.dumps(probe))
    return root


@pytest.fixture(scope="module")
def committed():
    ok = latest_ok(repo_rows())
    if not ok:
        pytest.skip("no llm-cpu measurement in the checkout")
    probe = json.loads((REPO_MEASUREMENTS / PLATFORM / "hardware.json").read_text())
    return ok, probe


@pytest.fixture(scope="module")
def snapshot(committed, tmp_path_factory):
    """One committed configuration per model (the first by model, sequence length, batch)."""
    ok, probe = committed
    first: dict[str, dict] = {}
    for r in sorted(ok.values(), key=lambda r: (r["model"], r["seq_len"], r["batch_size"])):
        first.setdefault(r["model"], r)
    return make_snapshot(tmp_path_factory.mktemp("llm-cpu"), list(first.values()), probe), list(first.values())


@pytest.fixture(scope="module")
def built(snapshot, tmp_path_factory):
    root, rows = snapshot
    home = tmp_path_factory.mktemp("home")
    ds = get_dataset("llm")
    with pytest.MonkeyPatch.context() as mp:  # no committed split file: the generator's folds
        splits_dir = tmp_path_factory.mktemp("splits")
        mp.setattr(paths, "splits_dir", lambda: splits_dir)
        folder = build_encoder_config(ds, ds.config(PLATFORM), home=home, measurements=root)
    return home, folder, pq.read_table(folder / "data" / "train-00000-of-00001.parquet").to_pylist()


# -- registry and rows ----------------------------------------------------------------------------
def test_registered_as_a_tabular_config_with_measured_targets():
    cfg = get_dataset("perfgraphs/llm").config(PLATFORM)
    assert cfg.kind == "tabular" and cfg.platform == PLATFORM
    assert [t.name for t in cfg.targets] == ["latency_ms", "latency_calibrated_ms", "throughput_samples_per_s",
                                             "peak_memory_mb"]
    assert cfg.split_protocols == ("leave-models-out", "stratified-5-fold")  # the official one first


def test_every_successful_committed_configuration_is_a_row(committed):
    # a running campaign only adds rows: what the builder reads lies between two direct reads
    before = {r["measurement_id"] for r in latest_ok(repo_rows()).values()}
    rows, _ = llm_cpu.measured_rows(REPO_MEASUREMENTS, PLATFORM)
    after = {r["measurement_id"] for r in latest_ok(repo_rows()).values()}
    read = [r["measurement_id"] for r in rows]
    assert len(set(read)) == len(read) and before <= set(read) <= after
    ids = [llm_cpu.row_id(r["model"], r["seq_len"], r["batch_size"]) for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_targets_are_the_measured_values(built, snapshot):
    _, _, table = built
    root, chosen = snapshot
    measured = repo_rows()  # the checkout's files, not the snapshot
    assert sorted(r["measurement_id"] for r in table) == sorted(r["measurement_id"] for r in chosen)
    for row in table:
        m = measured[row["measurement_id"]]
        assert row["row_id"] == f"{m['model']}@seq{m['seq_len']}#b{m['batch_size']}"
        assert (row["batch_size"], row["seq_len_tokens"]) == (m["batch_size"], m["seq_len"])
        assert row["latency_ms"] == m["latency_median_ms"]
        assert row["latency_calibrated_ms"] == m["latency_calibrated_ms"]
        assert row["throughput_samples_per_s"] == m["throughput_samples_per_s"]
        assert row["peak_memory_mb"] == m["peak_memory_mb"]
        assert row["run_times_ms"] == m["run_times_ms"] and row["measurement_key"] == m["key"]
        # throughput is batch / median latency: the measured columns agree with each other
        assert row["throughput_samples_per_s"] == pytest.approx(1000 * m["batch_size"] / m["latency_median_ms"])
        assert row["energy_per_sample_j"] is None  # no energy counter on this CPU: null, never estimated


def test_model_facts_equal_the_shipped_configs_and_closed_forms(built):
    _, _, table = built
    for row in table:
        c = _shipped_config(row["model_id"])
        L, H, I, V = _dims(c)
        assert (row["num_hidden_layers"], row["hidden_size"], row["intermediate_size"], row["vocab_size"]) == (L, H, I, V)
        assert row["num_attention_heads"] == c.get("num_attention_heads", c.get("n_heads"))
        assert row["max_position_embeddings"] == c["max_position_embeddings"]
        assert row["type_vocab_size"] == c.get("type_vocab_size", 0)
        assert row["total_params"] == closed_form_params(c)
        expected = closed_form_gmacs(c, row["seq_len_tokens"], row["batch_size"])
        assert row["gmacs_per_forward"] == pytest.approx(expected, rel=1e-12)
        assert row["gmacs_per_sequence"] == pytest.approx(expected / row["batch_size"], rel=1e-12)
        assert row["weight_bits"] == 32
        if row["batch_size"] == 1 and c["model_type"] != "deberta-v2":
            # the collector's own count on the exported ONNX graph (DeBERTa's graph folds the
            # weight-only relative-position projections that eager PyTorch runs every forward)
            assert row["gmacs_per_forward"] == pytest.approx(row["graph_gmacs_per_sample_batch1"], rel=2e-3)


def test_the_committed_counts_cover_every_row_and_equal_the_closed_form(committed):
    """A build reads the GMACs of every committed row from the package (counting them takes about
    2 min in a fresh home): every ok row has one, each equals the closed form, and the meta-device
    counter still gives the committed value (so a torch that counts otherwise fails here)."""
    ok, _ = committed
    counts = llm_cpu.committed_gmacs()
    ids = {llm_cpu.row_id(r["model"], r["seq_len"], r["batch_size"]) for r in ok.values()}
    assert ids <= set(counts) and len(ids) >= 300
    for rid, value in counts.items():
        model, rest = rid.rsplit("@seq", 1)
        seq, batch = (int(x) for x in rest.split("#b"))
        c = _shipped_config(encoder_facts(model).model_id)
        assert value == pytest.approx(closed_form_gmacs(c, seq, batch), rel=1e-12), rid
    rid = min(ids)
    model, rest = rid.rsplit("@seq", 1)
    seq, batch = (int(x) for x in rest.split("#b"))
    assert llm_cpu.forward_gmacs(model, seq, batch) == counts[rid]
    # control: a row the table does not hold is counted, and lands in the cache, not the table
    extra = llm_cpu.counted_gmacs([(model, 7, 3)])
    assert extra[llm_cpu.row_id(model, 7, 3)] == pytest.approx(closed_form_gmacs(
        _shipped_config(encoder_facts(model).model_id), 7, 3), rel=1e-12)
    assert llm_cpu.row_id(model, 7, 3) not in llm_cpu.committed_gmacs()


def test_facts_of_all_nine_encoders():
    bert = encoder_facts("hf:bert-base-uncased")
    # published: 12 layers, hidden 768, 12 heads, 3072 feed-forward, 30,522 tokens, ~110 M parameters
    assert (bert.num_hidden_layers, bert.hidden_size, bert.num_attention_heads, bert.intermediate_size,
            bert.vocab_size) == (12, 768, 12, 3072, 30522)
    assert bert.total_params == 109_482_240 == closed_form_params(_shipped_config("bert-base-uncased"))
    for path in sorted(HF_CONFIGS.glob("*.json")):
        c = json.loads(path.read_text())
        facts = encoder_facts(f"hf:{c['_name_or_path']}")
        assert facts.model_id == c["_name_or_path"]
        assert facts.total_params == closed_form_params(c), facts.model_id
    assert encoder_facts("hf:deberta-v3-base").total_params == pytest.approx(184e6, rel=0.005)  # model card: 86 M + 98 M


def test_hardware_columns_are_the_probe(built, committed):
    _, probe = committed
    _, _, table = built
    for row in table:
        assert row["cpu_model"] == probe["cpu_model"] and row["cpu_arch"] == probe["cpu_arch"]
        assert row["cores_used"] == probe["threads"] == 1
        assert row["cpu_freq_mhz"] == probe["cpu_freq_mhz"] and row["ram_mb"] == probe["ram_mb"]
        assert row["peak_gflops_measured"] == probe["peak_gflops_measured"]
        assert row["memory_bandwidth_gbps_measured"] == probe["memory_bandwidth_gbps_measured"]
        for cache in ("l1d", "l1i", "l2", "l3"):
            assert row[f"{cache}_cache_kib"] == probe["caches_kib"][f"{cache}_cache_kib"]


def test_loads_through_the_registry_and_builds_deterministically(built, snapshot, tmp_path):
    import datasets

    from perfgraphs.data.load import load_dataset

    home, folder, table = built
    loaded = load_dataset("perfgraphs/llm", PLATFORM, home=home)
    assert list(loaded) == ["train"] and loaded["train"]["row_id"] == [r["row_id"] for r in table]
    assert isinstance(datasets.load_dataset(str(folder / "data"))["train"], datasets.Dataset)  # plain datasets too
    ds = get_dataset("llm")
    again = build_encoder_config(ds, ds.config(PLATFORM), home=tmp_path, measurements=snapshot[0])
    first = json.loads((folder / "manifest.json").read_text())
    second = json.loads((again / "manifest.json").read_text())
    assert first["content_hash"] == second["content_hash"]
    assert first["inputs_sha256"] == second["inputs_sha256"]


# -- folds ---------------------------------------------------------------------------------------
def test_built_folds_are_disjoint_cover_every_row_and_are_balanced(built):
    from perfgraphs.data.splits import fold_parts

    _, _, rows = built
    parts = fold_parts(pa.Table.from_pylist(rows))
    listed = [i for ids in parts.values() for i in ids]
    assert sorted(listed) == sorted(r["row_id"] for r in rows) and len(set(listed)) == len(listed)
    sizes = [len(v) for v in parts.values()]
    assert max(sizes) - min(sizes) <= 1


def test_fold_generator_is_stratified_balanced_and_order_free():
    sizes = {"bert": 7, "deberta": 3, "roberta": 12, "tiny": 1}
    ids = [f"{m}#{k}" for m, n in sizes.items() for k in range(n)]
    strata = [i.split("#")[0] for i in ids]
    folds = stratified_folds(ids, strata, across_strata=True)
    overall = Counter(folds)
    assert set(overall) == set(range(5)) and max(overall.values()) - min(overall.values()) <= 1
    for model, n in sizes.items():
        per = Counter(f for f, s in zip(folds, strata) if s == model)
        assert sum(per.values()) == n and (max(per.values()) - min(per.values()) <= 1)
        assert len(per) == min(n, 5)
    order = np.random.default_rng(0).permutation(len(ids))
    shuffled = stratified_folds([ids[i] for i in order], [strata[i] for i in order], across_strata=True)
    assert dict(zip([ids[i] for i in order], shuffled)) == dict(zip(ids, folds))
    # five one-row models: one row per fold (each stratum alone would start at fold 0)
    assert sorted(stratified_folds(list("abcde"), list("abcde"), across_strata=True)) == [0, 1, 2, 3, 4]
    assert stratified_folds(list("abcde"), list("abcde")) == [0] * 5  # the mlenergy deal, unchanged


def test_committed_split_file_is_written_and_enforced(snapshot, tmp_path, monkeypatch, capsys):
    from perfgraphs.data.splits import get_split, split_path
    from perfgraphs.data.recipes import write_splits
    from perfgraphs.data.splits import fold_parts

    root, _ = snapshot
    monkeypatch.setattr(paths, "splits_dir", lambda: tmp_path / "splits")
    written = write_splits("llm", measurements_root=root, config=PLATFORM)
    path = split_path("perfgraphs/llm", "stratified-5-fold", 0, config=PLATFORM)
    grouped = split_path("perfgraphs/llm", "leave-models-out", 0, config=PLATFORM)
    assert path == tmp_path / "splits" / "llm" / PLATFORM / "stratified-5-fold-seed0.json"
    assert sorted(p for p, _ in written) == sorted([path, grouped])  # both protocols' files
    table, _ = encoder_rows(root)
    assert get_split("perfgraphs/llm", "stratified-5-fold", 0, config=PLATFORM) == fold_parts(table)
    assert json.loads(path.read_text())["unit"] == "row_id"
    ds = get_dataset("llm")
    folder = build_encoder_config(ds, ds.config(PLATFORM), home=tmp_path / "a", measurements=root)
    assert json.loads((folder / "manifest.json").read_text())["committed_split"] == "current"
    content = json.loads(path.read_text())
    if len(table) > 1:  # the same rows in other folds: the generator changed, refuse
        moved = content["parts"]["fold0"].pop()
        content["parts"]["fold1"].append(moved)
        path.write_text(json.dumps(content))
        with pytest.raises(LLMCPUBuildError, match="differ from the committed split"):
            build_encoder_config(ds, ds.config(PLATFORM), home=tmp_path / "b", measurements=root)
    content["parts"]["fold2"].append("hf:bert-base-uncased@seq9999#b1")  # rows changed since: stale, noted
    path.write_text(json.dumps(content))
    folder = build_encoder_config(ds, ds.config(PLATFORM), home=tmp_path / "c", measurements=root)
    assert json.loads((folder / "manifest.json").read_text())["committed_split"] == "stale"
    assert "committed split file is stale" in capsys.readouterr().err


def test_load_rebuilds_when_the_campaign_commits_rows(snapshot, tmp_path, monkeypatch):
    from perfgraphs.data.load import load_dataset

    root, rows = snapshot
    if len(rows) < 2:
        pytest.skip("needs two measured models")
    growing = make_snapshot(tmp_path / "llm-cpu", rows[:1],
                            json.loads((root / PLATFORM / "hardware.json").read_text()))
    monkeypatch.setattr(llm_cpu, "measurements_root", lambda: growing)  # this folder is "the checkout's"
    monkeypatch.setattr(paths, "splits_dir", lambda: tmp_path / "splits")
    assert len(load_dataset("llm", PLATFORM, home=tmp_path / "home")["train"]) == 1
    make_snapshot(growing, rows[1:2])
    assert len(load_dataset("llm", PLATFORM, home=tmp_path / "home")["train"]) == 2


# -- the tabular protocol and baselines ----------------------------------------------------------
def test_runner_cross_validates_the_llm_baselines(built):
    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark

    home, _, table = built
    if len(table) < 3:
        pytest.skip("fewer than three committed configurations")
    folds = np.array([r["fold"] for r in table])
    y = np.array([r["latency_ms"] for r in table])[np.argsort(folds, kind="stable")]
    for baseline in ("llm-xgboost", "static-mlp", "static-xgboost"):
        result = run_benchmark(RunSpec("llm", PLATFORM, "latency_ms", baseline, quick=True, protocol="stratified-5-fold"),
                               home=home, log=False)  # the rows' own fold column is the stratified protocol's
        scores = result.per_seed[0]
        pred = np.asarray(scores["y_pred"])
        assert scores["n"] == len(table) and np.isfinite(pred).all() and (pred > 0).all()
        assert scores["mape_pct"] == pytest.approx(np.mean(np.abs(y - pred) / y) * 100)  # pooled, fold order
        assert set(scores["per_family"]) == {r["family"] for r in table}


def test_encoder_features_read_the_columns(built):
    from perfgraphs.data.llm_features import (LLMFeatureError, encoder_feature_names, encoder_features,
                                              tabular_features)

    _, _, table = built
    cols = {k: [r[k] for r in table] for k in table[0]}
    X = tabular_features(cols)
    names = encoder_feature_names()
    assert X.shape == (len(table), len(names)) and np.isfinite(X).all()
    assert X[:, names.index("log2_batch_size")].tolist() == pytest.approx(np.log2(cols["batch_size"]).tolist())
    assert X[:, names.index("num_hidden_layers")].tolist() == cols["num_hidden_layers"]
    assert X[:, names.index("peak_gflops_measured")].tolist() == cols["peak_gflops_measured"]
    assert np.array_equal(X, encoder_features(cols))
    with pytest.raises(LLMFeatureError, match="neither"):
        tabular_features({"row_id": ["x"]})


# -- refusals: one line each ---------------------------------------------------------------------
def _one_line(exc) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_build_refusals(snapshot, tmp_path):
    root, rows = snapshot
    probe = json.loads((root / PLATFORM / "hardware.json").read_text())
    with pytest.raises(LLMCPUBuildError) as exc:
        encoder_rows(tmp_path / "empty")
    assert "no successful cpu-torch-fp32 measurement" in _one_line(exc)
    no_probe = make_snapshot(tmp_path / "no-probe", rows[:1])
    with pytest.raises(LLMCPUBuildError) as exc:
        encoder_rows(no_probe)
    assert "no hardware probe" in _one_line(exc)
    other = make_snapshot(tmp_path / "other", rows[:1], {**probe, "machine_id": "0" * 16})
    with pytest.raises(LLMCPUBuildError) as exc:
        encoder_rows(other)
    assert "hardware columns would be wrong" in _one_line(exc)


def test_too_few_rows_for_the_folds_is_a_clear_error(snapshot, tmp_path):
    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark
    from perfgraphs.evaluation.tabular_protocol import TabularProtocolError

    root, rows = snapshot
    if len(rows) < 2:
        pytest.skip("needs two measured models")
    probe = json.loads((root / PLATFORM / "hardware.json").read_text())
    two = make_snapshot(tmp_path / "two", rows[:2], probe)
    ds = get_dataset("llm")
    build_encoder_config(ds, ds.config(PLATFORM), home=tmp_path / "home", measurements=two)
    with pytest.raises(TabularProtocolError) as exc:
        run_benchmark(RunSpec("llm", PLATFORM, "latency_ms", "llm-xgboost", quick=True, protocol="stratified-5-fold"),
                      home=tmp_path / "home", log=False)
    assert "fold 0 leaves 1 training row of 2; the tabular baselines need at least 2" in _one_line(exc)


def test_cli_refusals_are_one_line(capsys):
    from perfgraphs.cli import main

    base = ["benchmark", "--dataset", "llm", "--config", PLATFORM, "--no-mlflow", "--quick"]
    cases = [
        (base + ["--target", "latency_ms", "--baseline", "llm-gnn"], "cpu-torch-fp32 rows are tabular"),
        (base + ["--target", "energy_per_token_joules", "--baseline", "llm-xgboost"], "has no target"),
        (["datasets", "splits", "llm", "--config", "nope"], "has no config 'nope'"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert expected in err and "\n" not in err, err
