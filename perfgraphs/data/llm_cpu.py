"""Tabular config ``perfgraphs/llm`` / ``cpu-torch-fp32``: our own measurements of the nine encoder
LLMs (forward passes on one pinned CPU core, ``plans/llm-cpu.yaml``), one row per measured
(model, sequence length, batch size).

Built from whatever rows the checkout holds under ``data/measurements/llm-cpu/`` (the campaign
grows; nothing is estimated to fill it): every ``ok`` row of the config's platform and the
``llm-cpu`` protocol. Each row gets

* model facts from real, offline sources: the transformers configuration the zoo builds the
  encoder from (``perfgraphs/graph/hf_configs``), its parameter count from the instantiated
  (meta-device) model, and the GMACs of the measured forward (this batch and sequence length)
  counted on the meta device with torch's FLOP counter;
* hardware facts from the platform's hardware probe (``<platform>/hardware.json``: CPU, cores
  used, clock, RAM, caches, measured peak GFLOP/s and memory bandwidth);
* the measured targets as the collector stored them; energy is null (no RAPL counter on this
  machine; never estimated).

``row_id`` is ``<model>@seq<len>#b<batch>`` and ``fold`` the stratified 5-fold protocol (stratum =
model, dealt round-robin across strata so small configs still fill every fold); the folds are
committed as ``data/splits/llm/cpu-torch-fp32/stratified-5-fold-seed0.json``
(``perfgraphs datasets splits llm``). A build on exactly the committed file's rows must reproduce
it; rows committed after the file (the campaign went on) are built with the generator's folds and
the manifest says the file is stale.
"""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa

from perfgraphs.atomic import atomic_write_bytes
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import CPU_TORCH_FP32, Config, Dataset

SUITE = "llm-cpu"
PROTOCOL = "llm-cpu"  # the collector's measurement protocol of the suite (plans/llm-cpu.yaml)
SPLIT_PROTOCOL = "stratified-5-fold"
# Measurement statistics and provenance carried beside the targets (collector column → ours).
MEASUREMENT_COLUMNS = {
    "latency_mean_ms": "latency_mean_ms", "latency_std_ms": "latency_std_ms", "latency_min_ms": "latency_min_ms",
    "latency_max_ms": "latency_max_ms", "latency_mad_ms": "latency_mad_ms", "n_timed_runs": "n_timed_runs",
    "n_warmup_runs": "n_warmup_runs", "run_times_ms": "run_times_ms", "key": "measurement_key",
    "measurement_id": "measurement_id", "structure_hash": "structure_hash",
    "graph_gmacs_per_sample": "graph_gmacs_per_sample_batch1", "measured_at_utc": "measured_at_utc",
    "torch_version": "torch_version", "transformers_version": "transformers_version",
    "python_version": "python_version",
}


class LLMCPUBuildError(PerfgraphsError):
    """The committed measurements cannot make the config (none, no probe, another machine, ...)."""


def measurements_root() -> Path:
    from perfgraphs import paths

    return paths.measurement_store(SUITE)


# -- model facts -------------------------------------------------------------------------------
@dataclass(frozen=True)
class EncoderFacts:
    """What the transformers configuration and the instantiated model say about one encoder."""

    model_id: str  # Hugging Face id of the shipped configuration
    num_hidden_layers: int
    hidden_size: int
    num_attention_heads: int
    intermediate_size: int  # feed-forward width
    vocab_size: int
    max_position_embeddings: int
    type_vocab_size: int  # 0: the model has no token-type (segment) embeddings
    total_params: int  # unique parameters of the instantiated model


@functools.lru_cache(maxsize=None)
def _meta_encoder(model_id: str):
    from perfgraphs.collect.plangen import meta_encoder

    return meta_encoder(model_id)


@functools.lru_cache(maxsize=None)
def encoder_facts(model: str) -> EncoderFacts:
    """Facts of ``hf:<id>`` (or ``<id>``) from its shipped configuration and meta-device model."""
    from perfgraphs.graph.zoo import hf_config, resolve_hf_id

    model_id = resolve_hf_id(model.removeprefix("hf:"))
    config = hf_config(model_id)
    # DistilBERT names its feed-forward width hidden_dim (transformers maps only the other names)
    intermediate = getattr(config, "intermediate_size", None) or getattr(config, "hidden_dim")
    return EncoderFacts(
        model_id=model_id,
        num_hidden_layers=int(config.num_hidden_layers),
        hidden_size=int(config.hidden_size),
        num_attention_heads=int(config.num_attention_heads),
        intermediate_size=int(intermediate),
        vocab_size=int(config.vocab_size),
        max_position_embeddings=int(config.max_position_embeddings),
        type_vocab_size=int(getattr(config, "type_vocab_size", 0) or 0),
        total_params=int(sum(p.numel() for p in _meta_encoder(model_id).parameters())),
    )


@functools.lru_cache(maxsize=None)
def forward_gmacs(model: str, seq_len: int, batch_size: int) -> float:
    """GMACs of the measured forward: ``batch_size`` sequences of ``seq_len`` tokens."""
    from perfgraphs.collect.plangen import count_encoder_gmacs

    return count_encoder_gmacs(_meta_encoder(encoder_facts(model).model_id), seq_len, batch_size)


def _counter_versions() -> str:
    import torch
    import transformers

    return f"torch {torch.__version__}, transformers {transformers.__version__}"


# The counts of every committed row, kept in the package (``python -m perfgraphs.data.llm_cpu``
# writes them): without them a build in a fresh home counts 377 forwards again (0.4-2 s each, about
# 2.5 min), and every reader of the llm boards' floor or ranks waits for that build.
COMMITTED_GMACS = Path(__file__).with_name("llm_cpu_gmacs.json")


def committed_gmacs() -> dict[str, float]:
    """``row_id`` → GMACs as counted when the table was written (``COMMITTED_GMACS``; empty when the
    file is missing or unreadable). A count is a fact of the architecture and the input: the test
    suite counts a sample of rows again and compares."""
    try:
        content = json.loads(COMMITTED_GMACS.read_text())
        return {str(k): float(v) for k, v in content["gmacs"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def counted_gmacs(configs: list[tuple[str, int, int]], cache: Path | None = None) -> dict[str, float]:
    """``row_id`` → :func:`forward_gmacs` of every (model, seq_len, batch): the committed count
    (:func:`committed_gmacs`) where there is one, else one kept in ``cache`` (JSON, valid for the
    torch and transformers versions that counted them), else counted now (0.4-2 s on one core)."""
    stored: dict[str, float] = {}
    if cache is not None and cache.is_file():
        try:
            content = json.loads(cache.read_text())
            if content.get("versions") == _counter_versions():
                stored = {k: float(v) for k, v in content["gmacs"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            stored = {}  # unreadable: count again
    committed = committed_gmacs()
    out = {}
    for model, seq_len, batch in configs:
        rid = row_id(model, seq_len, batch)
        if rid in committed:
            out[rid] = committed[rid]
        elif rid in stored:
            out[rid] = stored[rid]
        else:
            out[rid] = forward_gmacs(model, seq_len, batch)
    counted = set(out) - set(stored) - set(committed)
    if cache is not None and counted:
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, json.dumps({"versions": _counter_versions(),
                                              "gmacs": {**stored, **{r: out[r] for r in counted}}}, sort_keys=True).encode())
    return out


def write_committed_gmacs(root: Path | None = None, platform: str = CPU_TORCH_FP32) -> Path:
    """Count every ``ok`` row of the store (and keep the counts already committed for rows it no
    longer holds) into ``COMMITTED_GMACS``."""
    rows, _ = measured_rows(Path(root or measurements_root()), platform)
    gmacs = committed_gmacs()
    for r in rows:
        rid = row_id(r["model"], int(r["seq_len"]), int(r["batch_size"]))
        if rid not in gmacs:
            gmacs[rid] = forward_gmacs(r["model"], int(r["seq_len"]), int(r["batch_size"]))
    doc = {"about": "GMACs of each measured forward of perfgraphs/llm cpu-torch-fp32 (row_id: model@seq<len>#b<batch>), "
                    "counted on the meta device with torch's FLOP counter (matrix products, FLOPs / 2); written by "
                    "`python -m perfgraphs.data.llm_cpu`", "versions": _counter_versions(),
           "gmacs": dict(sorted(gmacs.items()))}
    atomic_write_bytes(COMMITTED_GMACS, (json.dumps(doc, indent=1) + "\n").encode())
    return COMMITTED_GMACS


# -- hardware facts ----------------------------------------------------------------------------
_S, _F, _I = pa.string(), pa.float64(), pa.int64()
# Every column and its type, in order (units in the names; the card's columns dictionary).
SCHEMA = pa.schema([
    ("row_id", _S), ("fold", pa.int32()), ("model_id", _S), ("model", _S), ("family", _S), ("platform", _S),
    ("protocol", _S), ("precision", _S),
    # model features
    ("batch_size", _I), ("seq_len_tokens", _I), ("num_hidden_layers", _I), ("hidden_size", _I),
    ("num_attention_heads", _I), ("intermediate_size", _I), ("vocab_size", _I), ("max_position_embeddings", _I),
    ("type_vocab_size", _I), ("total_params", _I), ("gmacs_per_forward", _F), ("gmacs_per_sequence", _F),
    ("weight_bits", _I),
    # hardware features
    ("cpu_model", _S), ("cpu_arch", _S), ("cores_used", _I), ("logical_cores", _I), ("physical_cores", _I),
    ("cpu_freq_mhz", _F), ("ram_mb", _F), ("l1d_cache_kib", _I), ("l1i_cache_kib", _I), ("l2_cache_kib", _I),
    ("l3_cache_kib", _I), ("peak_gflops_measured", _F), ("memory_bandwidth_gbps_measured", _F),
    ("hardware_probed_at_utc", _S),
    # targets (measured)
    ("latency_ms", _F), ("latency_calibrated_ms", _F), ("throughput_samples_per_s", _F), ("peak_memory_mb", _F),
    ("energy_per_sample_j", _F),
    # measurement statistics and provenance
    ("latency_mean_ms", _F), ("latency_std_ms", _F), ("latency_min_ms", _F), ("latency_max_ms", _F),
    ("latency_mad_ms", _F), ("n_timed_runs", _I), ("n_warmup_runs", _I), ("run_times_ms", pa.list_(_F)),
    ("measurement_key", _S), ("measurement_id", _S), ("structure_hash", _S), ("graph_gmacs_per_sample_batch1", _F),
    ("measured_at_utc", _S), ("torch_version", _S), ("transformers_version", _S), ("python_version", _S),
])


def hardware_columns(probe: dict) -> dict:
    """The probe's facts as columns (``threads`` of the platform = cores used: one pinned core)."""
    caches = probe.get("caches_kib") or {}
    return {
        "cpu_model": probe["cpu_model"], "cpu_arch": probe["cpu_arch"], "cores_used": probe["threads"],
        "logical_cores": probe["logical_cores"], "physical_cores": probe["physical_cores"],
        "cpu_freq_mhz": probe["cpu_freq_mhz"], "ram_mb": probe["ram_mb"],
        **{f"{k}_cache_kib": caches.get(f"{k}_cache_kib") for k in ("l1d", "l1i", "l2", "l3")},
        "peak_gflops_measured": probe["peak_gflops_measured"],
        "memory_bandwidth_gbps_measured": probe["memory_bandwidth_gbps_measured"],
        "hardware_probed_at_utc": probe["probed_at_utc"],
    }


def read_probe(root: Path, platform: str) -> dict:
    path = Path(root) / platform / "hardware.json"
    if not path.exists():
        raise LLMCPUBuildError(f"no hardware probe {path}: the campaign writes it before its first measurement")
    try:
        probe = json.loads(path.read_text())
        hardware_columns(probe)
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise LLMCPUBuildError(f"{path} is not a hardware probe ({type(exc).__name__}: {exc})") from None
    return probe


# -- rows --------------------------------------------------------------------------------------
def row_id(model: str, seq_len: int, batch_size: int) -> str:
    from perfgraphs.pool.structures import structure_id

    return f"{structure_id(model, None, seq_len)}#b{batch_size}"


def weight_bits(precision: str) -> int:
    """Bits per stored weight element on a torch platform (SPEC §3's quantization type)."""
    bits = {"fp32": 32, "bf16": 16, "fp16": 16}.get(precision)
    if bits is None:
        raise LLMCPUBuildError(f"precision {precision!r} has no weight width here (known: fp32, bf16, fp16)")
    return bits


def measured_rows(root: Path, platform: str) -> tuple[list[dict], int]:
    """Successful rows of the suite's protocol on ``platform``, ordered by row id, and the number
    of configurations whose latest attempt failed (error / OOM: left out)."""
    from perfgraphs.collect.store import load_measurements

    table = load_measurements(root)
    rows = [r for r in table.to_pylist() if r["platform"] == platform and r["protocol"] == PROTOCOL]
    ok = sorted((r for r in rows if r["status"] == "ok"),
                key=lambda r: row_id(r["model"], r["seq_len"], r["batch_size"]))
    return ok, len(rows) - len(ok)


def encoder_rows(root: Path | None = None, platform: str = CPU_TORCH_FP32,
                 gmacs_cache: Path | None = None) -> tuple[pa.Table, dict]:
    """The config's table (one row per measured configuration, ``row_id`` and ``fold`` included)
    and facts for the manifest; ``gmacs_cache``: see :func:`counted_gmacs`."""
    from perfgraphs.data.tabular import stratified_folds

    root = Path(root or measurements_root())
    rows, failed = measured_rows(root, platform)
    if not rows:
        raise LLMCPUBuildError(f"no successful {platform} measurement of protocol {PROTOCOL} in {root} "
                               f"(run `perfgraphs collect plans/{SUITE}.yaml`)")
    probe = read_probe(root, platform)
    machines = sorted({r["machine_id"] for r in rows} - {probe["machine_id"]})
    if machines:
        raise LLMCPUBuildError(f"{root}: rows measured on machine(s) {', '.join(machines)}, but the hardware probe "
                               f"is of machine {probe['machine_id']}; the hardware columns would be wrong")
    hardware = hardware_columns(probe)
    gmacs_of = counted_gmacs([(r["model"], int(r["seq_len"]), int(r["batch_size"])) for r in rows], gmacs_cache)
    out: list[dict] = []
    seen: set[str] = set()
    for r in rows:
        rid = row_id(r["model"], r["seq_len"], r["batch_size"])
        if rid in seen:  # one key per (model, input, batch) within a platform and protocol
            raise LLMCPUBuildError(f"{root}: two measurements of {rid}")
        seen.add(rid)
        facts = encoder_facts(r["model"])
        gmacs = gmacs_of[rid]
        model_facts = {k: v for k, v in asdict(facts).items() if k != "model_id"}
        out.append({
            "row_id": rid, "model_id": facts.model_id, "model": r["model"], "family": r["family"],
            "platform": platform, "protocol": r["protocol"], "precision": r["precision"],
            "batch_size": int(r["batch_size"]), "seq_len_tokens": int(r["seq_len"]),
            **model_facts,
            "gmacs_per_forward": gmacs, "gmacs_per_sequence": gmacs / int(r["batch_size"]),
            "weight_bits": weight_bits(r["precision"]),
            **hardware,
            "latency_ms": r["latency_median_ms"], "latency_calibrated_ms": r["latency_calibrated_ms"],
            "throughput_samples_per_s": r["throughput_samples_per_s"], "peak_memory_mb": r["peak_memory_mb"],
            # the collector stores null: this CPU exposes no energy counter (no RAPL)
            "energy_per_sample_j": r["energy_per_sample_j"],
            **{ours: r[theirs] for theirs, ours in MEASUREMENT_COLUMNS.items()},
        })
    ids = [r["row_id"] for r in out]
    folds = stratified_folds(ids, [r["model_id"] for r in out], across_strata=True)
    for r, fold in zip(out, folds):
        r["fold"] = fold
    table = pa.Table.from_pylist(out, schema=SCHEMA)
    return table, {"measurement_rows_not_ok": failed, "hardware_machine_id": probe["machine_id"]}


def encoder_inputs(platform: str, root: Path | None = None) -> list:
    """What the config reads: the platform's folder of the store (shards, parts, hardware probe)."""
    from perfgraphs.data.build_inputs import tree_input

    return [tree_input("measurements", (Path(root or measurements_root()) / platform).absolute())]


def committed_split_state(dataset: str, config: str, table: pa.Table) -> str:
    """``current`` (the committed file lists exactly these rows, in the same folds), ``stale``
    (rows were added or removed since it was written) or ``absent``; a file listing exactly these
    rows in other folds means the generator changed, which is an error."""
    from perfgraphs.data.splits import get_split, split_path
    from perfgraphs.data.splits import fold_parts

    path = split_path(dataset, SPLIT_PROTOCOL, 0, config=config)
    if not path.exists():
        return "absent"
    committed = get_split(dataset, SPLIT_PROTOCOL, 0, config=config)
    parts = fold_parts(table)
    if sorted(i for v in committed.values() for i in v) != sorted(table.column("row_id").to_pylist()):
        return "stale"
    if committed != parts:
        raise LLMCPUBuildError(f"the folds of these rows differ from the committed split {path} "
                               "(the fold generator changed?)")
    return "current"


def build_encoder_config(dataset: Dataset, config: Config, home: Path | None = None,
                         measurements: Path | None = None) -> Path:
    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.staging import StagedBuild

    root = Path(measurements or measurements_root())
    folder = dataset_folder(dataset, config, home)
    inputs = encoder_inputs(config.platform, root)  # digested before the rows are read
    # the count cache sits beside the build, outside the files its manifest hashes
    table, facts = encoder_rows(root, config.platform, gmacs_cache=folder.parent / f".gmacs-{config.name}.json")
    split_state = committed_split_state(dataset.name, config.name, table)
    if split_state != "current":
        print(f"note: {dataset.name}/{config.name}: the committed split file is {split_state}; the folds of these "
              f"{table.num_rows} rows come from the generator (`perfgraphs datasets splits llm --config {config.name}` "
              "writes them)", file=sys.stderr)
    with StagedBuild(folder) as stage:
        stage.write_shard("train", 0, 1, table)
        return stage.commit(dataset.name, dataset.version, config.name, inputs, measurements is None,
                            {**facts, "measurements": str(root), "committed_split": split_state})


if __name__ == "__main__":
    print(f"wrote {write_committed_gmacs()}: {len(committed_gmacs())} rows")
