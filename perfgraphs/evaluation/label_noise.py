"""The noise floor of a target's labels: the error a perfect predictor would still show because the
labels themselves move between measurements. Every results table prints it beside the errors.

* our CPU configs measured in rounds (the CPU-time protocol): every configuration's rounds, from
  the store itself (:mod:`perfgraphs.collect.floor`);
* our first-version CPU configs whose test part was measured again (``Config.repeat_suite``):
  every test label against its later visits (:mod:`perfgraphs.data.repeats`), the probe's floor
  beside it;
* our first-version CPU configs: two independent measurement rounds of a fixed probe set
  (``perfgraphs collect noise-floor``, saved under ``data/measurements/noise-floor/``);
* timm benchmark platforms: the same model on the same GPU/CPU under different PyTorch versions
  (:func:`perfgraphs.loaders.cross_version_noise_floor`), the only repeated measurements timm
  publishes;
* tabular LLM rows (ML.ENERGY): serving configurations that appear more than once in the data
  (:func:`perfgraphs.evaluation.tabular_protocol.noise_floor_sentence`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from perfgraphs import paths
from perfgraphs.registry import PLATFORM_SEPARATOR, Task

# A first-version config's floor is the probe of the suite that measured its labels (the registry's
# ``noise_probe_file``): stated only for the labels its two rounds measured on that suite's own
# configurations (timings: latency and what is derived from it); another suite's probe (trappm's
# training steps) or another quantity (peak memory) has none yet, and the cards and boards say so
# rather than borrow one.
PROBED_TARGETS = ("latency_ms", "latency_calibrated_ms", "throughput_samples_per_s")


def timm_noise_group(platform: str) -> str:
    """``timm-rtx4090-amp-nchw-pt240-cu124-dynamo`` → ``rtx4090/amp/nchw/dynamo`` (the grouping of
    :func:`perfgraphs.loaders.timm_benchmark.cross_version_noise_floor_details`)."""
    device, precision, layout = platform.removeprefix("timm-").split("-")[:3]
    return f"{device}/{precision}/{layout}" + ("/dynamo" if platform.endswith("-dynamo") else "")


def noise_floor_note(task: Task, test_part=None) -> str | None:
    """One Markdown sentence stating the labels' noise floor, or None when none is known;
    ``test_part``: the board's test part where the caller has loaded it already."""
    found = labels_floor(task, test_part)
    return found[0] if found else None


def labels_floor(task: Task, test_part=None) -> tuple[str, float | None] | None:
    """(the floor's sentence, its MAPE % or None where the sentence says none is measured), or None
    when nothing is known. The number is the one the sentence shows in bold. ``test_part``: the
    board's test part (a Hugging Face part with ``measurement_id``), where the caller holds it, so a
    floor measured on it does not load the build again."""
    ds, cfg, target = task.dataset, task.config, task.target.name
    # imported rows without a platform (ML.ENERGY); a multi-platform config's platform is in its target
    if cfg.platform is None and not cfg.platform_sources and cfg.source("external") is not None:
        from perfgraphs.evaluation.tabular_protocol import noise_floor_sentence
        from perfgraphs.data.load import load_build

        return noise_floor_sentence(load_build(ds, cfg).data["train"], target), None
    platform = cfg.platform
    if PLATFORM_SEPARATOR in target:
        platform = target.split(PLATFORM_SEPARATOR, 1)[1]
    elif cfg.platform_sources:  # every platform's column at once (the transfer boards)
        return every_platform_floor(task)
    if platform is None:
        return None
    if platform.startswith("timm-"):
        from perfgraphs.loaders.timm_benchmark import import_timm_benchmark, imported_noise_floors

        group = timm_noise_group(platform)
        found = imported_noise_floors(import_timm_benchmark()).get(group)
        if found is None:
            return f"Noise floor: timm publishes {group} under one PyTorch version only, so none is measurable.", None
        return (f"Noise floor of the labels: the same models on {group} under PyTorch "
                f"{' / '.join(found.torch_versions)} disagree by **{found.mape_percent:.1f} % MAPE** "
                f"(median {found.median_ape_percent:.1f} %, {found.n_configs} configurations)."), found.mape_percent
    if cfg.suite is not None and cfg.min_rounds > 1:
        return rounds_floor(ds, cfg, target)
    repeated = test_part_floor(task, test_part) if platform == cfg.platform else None
    probe = probe_floor(cfg, target) if platform == cfg.platform else None
    if repeated and probe:  # the test part's own floor first; the probe's, older, beside it
        return f"{repeated[0]} Earlier, on a probe: {probe[0]}", repeated[1]
    return repeated or probe


def probe_floor(cfg, target: str) -> tuple[str, float] | None:
    """A first-version config's floor from the two rounds of its suite's probe, where they measured
    the target."""
    name = cfg.noise_probe_file
    if target not in PROBED_TARGETS or name is None or not (paths.noise_floor_dir() / name).exists():
        return None
    noise, why = read_probe(paths.noise_floor_dir() / name)
    if noise is None:
        return (f"Noise floor: not shown, the probe file {name} is not one `perfgraphs collect noise-floor` "
                f"writes ({why})."), None
    return (f"Noise floor of the labels (the same {len(noise['probe'])} configurations of the {noise['plan']} plan "
            f"measured in two independent rounds on this platform): **{noise['mape_raw_pct']:.1f} % MAPE raw, "
            f"{noise['mape_calibrated_pct']:.1f} % calibrated**."), noise["mape_raw_pct"]


# a probe's plan is a suite's name (``dippm-cpu``), as the registry writes one
_PLAN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def read_probe(path) -> tuple[dict | None, str]:
    """(the noise probe file ``path``, "") when it is what ``perfgraphs collect noise-floor`` writes (a
    plan's name, a list of probed configurations, two finite MAPEs ≥ 0), else (None, why not). The file
    is committed outside the organisers' folder, so a pull request can change it, and every board
    quoting it is read through here: a plan of ``dippm-cpu[/bold]`` stopped `leaderboard show` with
    "internal error: MarkupError", a MAPE written as text stopped `show` and `build` with "internal
    error: ValueError", and a plan holding a line break printed a line of its own under a board's
    table (forty-first pass of 2026-12-04)."""
    try:
        noise = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: JSON's own, and bad UTF-8
        return None, f"unreadable: {type(exc).__name__}"
    if not isinstance(noise, dict):
        return None, "not a JSON object"
    if not (isinstance(noise.get("plan"), str) and _PLAN.fullmatch(noise["plan"])):
        return None, "its plan is not a suite's name"
    if not (isinstance(noise.get("probe"), list) and noise["probe"]):
        return None, "its probe is not a list of configurations"
    for key in ("mape_raw_pct", "mape_calibrated_pct"):
        value = noise.get(key)
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6):
            return None, f"its {key} is not a MAPE (a finite number ≥ 0)"
    return noise, ""


def test_part_floor(task: Task, test_part=None) -> tuple[str, float] | None:
    """The floor of a config whose test part was measured again (``Config.repeat_suite``): every
    visit of a test configuration against the label the board scores (:mod:`perfgraphs.data.repeats`).
    ``test_part``: that test part, where the caller has loaded it (else it is loaded here)."""
    cfg = task.config
    if cfg.repeat_suite is None:
        return None
    from perfgraphs.data.repeats import repeat_floor, repeat_levels, repeat_values

    if test_part is not None:
        ids = list(test_part["measurement_id"][:]) if "measurement_id" in test_part.column_names else None
    else:
        ids = _test_measurement_ids(task)
    if ids is None:
        return None
    values = repeat_values(task.dataset, cfg, task.target.name, ids)
    found = repeat_floor(values, task.target.name, repeat_values(task.dataset, cfg, task.target.name, ids, True),
                         repeat_levels(task.dataset, cfg, task.target.name, ids)) if values else None
    if found is None:
        return None
    return (f"Noise floor of the labels, on the test part ({cfg.hardware or cfg.platform}): "
            f"{found.sentence(cfg.repeat_suite)}."), found.mape_pct


# A board's test part's measurement ids, by the build they were read from (its folder and content
# hash): the site and `leaderboard show` state every board's floor, and each target of a config
# loaded the same test part again (`perfgraphs quickstart`'s two sites: 29 loads, 28 s of 97).
_TEST_IDS: dict[tuple, list | None] = {}


def _test_measurement_ids(task: Task) -> list | None:
    """The ``measurement_id`` of each row of ``task``'s test part in order, None when it has none."""
    from perfgraphs.data.load import served_build
    from perfgraphs.evaluation.protocol import protocol_parts

    folder, manifest = served_build(task.dataset, task.config)
    key = (str(folder), manifest.get("content_hash"), task.config.name, task.target.name)
    if key[1] is None or key not in _TEST_IDS:
        test_part = protocol_parts(task)[1].test
        ids = list(test_part["measurement_id"][:]) if "measurement_id" in test_part.column_names else None
        if key[1] is None:
            return ids
        _TEST_IDS[key] = ids
    return None if _TEST_IDS[key] is None else list(_TEST_IDS[key])


def every_platform_floor(task: Task) -> tuple[str, float | None]:
    """A multi-platform target scored on every platform's column: each platform's labels have their
    own floor (or none), so the sentence gives their range and says which have none."""
    from perfgraphs.data.platforms import config_platforms

    cfg, target = task.config, task.target.name
    names = [p.name for p in config_platforms(cfg)]
    floors = {name: pct for name in names
              if (found := labels_floor(replace(task, target=cfg.target(f"{target}{PLATFORM_SEPARATOR}{name}"))))
              and (pct := found[1]) is not None}
    if not floors:
        return f"Noise floor: none of the {len(names)} platforms' labels has a measured floor.", None
    low, high = min(floors, key=floors.get), max(floors, key=floors.get)
    none = [n for n in names if n not in floors]
    return (f"Noise floor of the labels, per platform: **{floors[low]:.1f}–{floors[high]:.1f} % MAPE** "
            f"({low} to {high}; {len(floors)} of {len(names)} platforms, each its own floor as its board states it)"
            + (f"; none measured for {', '.join(none)}" if none else "") + "."), None


def rounds_floor(ds, cfg, target: str) -> tuple[str, float | None]:
    """The floor of a config measured in rounds: every configuration's rounds, from its store
    (:mod:`perfgraphs.collect.floor`); a CPU-time target states the wall-clock floor beside it."""
    from perfgraphs.collect.floor import store_floor
    from perfgraphs.data.build import measurement_root

    targets = (target, "latency_ms") if target == "cpu_time_ms" else (target,)
    floors = store_floor(measurement_root(ds, cfg), targets)
    if target not in floors:
        return f"Noise floor: no configuration of {cfg.suite} has two measurement rounds of {target} yet.", None
    text = f"Noise floor of the labels ({cfg.hardware or cfg.platform}): {floors[target].sentence()}"
    if target == "cpu_time_ms" and "latency_ms" in floors:
        text += f"; wall clock on the same rounds: {floors['latency_ms'].mape_pct:.1f} % MAPE"
    return text + ".", floors[target].mape_pct
