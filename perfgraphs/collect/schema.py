"""The measurement table's columns. Units are in the names; nulls mean "not measurable here"
(e.g. energy on a CPU without an energy counter), never an estimate.

An explicit schema keeps every shard's column types identical even when a shard happens to hold
only nulls in a column, so shards always concatenate.
"""

from __future__ import annotations

import pyarrow as pa

_S, _F, _I, _B = pa.string(), pa.float64(), pa.int32(), pa.bool_()

COLUMNS: list[tuple[str, pa.DataType]] = [
    # identity
    ("key", _S), ("measurement_id", _S), ("campaign_id", _S), ("suite", _S), ("plan_name", _S),
    ("family", _S), ("model", _S), ("input", _S), ("image_size", _I), ("seq_len", _I),
    ("batch_size", _I), ("platform", _S), ("mode", _S), ("protocol", _S),
    ("status", _S), ("error", _S),
    # which round of the configuration this row is (1, 2, ...: separate workers, apart in time)
    ("round", _I),
    # graph join
    ("structure_hash", _S), ("graph_gmacs_per_sample", _F), ("graph_error", _S),
    # per-run statistics of one iteration (inference: forward; train: forward+backward+step)
    ("latency_median_ms", _F), ("latency_mean_ms", _F), ("latency_std_ms", _F),
    ("latency_min_ms", _F), ("latency_max_ms", _F), ("latency_mad_ms", _F),
    ("latency_spread", _F), ("n_timed_runs", _I), ("n_warmup_runs", _I),
    ("run_times_ms", pa.list_(_F)),
    # drift calibration
    ("ref_before_ms", _F), ("ref_after_ms", _F), ("ref_ms", _F), ("ref_baseline_ms", _F),
    ("ref_run_ms", pa.list_(_F)),  # the reference probe after each timed run (CPU)
    ("latency_calibrated_ms", _F),
    # CPU time of each timed run (CPU platforms): the measuring thread's clock when the platform
    # computes on one thread (cpu_time_kind "thread"), else the whole process's ("process");
    # ref_run_cpu_ms: the reference probe's CPU time, after each run or (CPU-time protocols) five
    # times before and five times after the timed runs
    ("cpu_time_ms", _F), ("cpu_time_mad_ms", _F), ("cpu_time_kind", _S),
    ("run_cpu_times_ms", pa.list_(_F)), ("ref_run_cpu_ms", pa.list_(_F)), ("ref_baseline_cpu_ms", _F),
    # the quiet gate over the timed runs (perfgraphs.collect.gate): what it saw, and its verdict
    ("gate_span_s", _F), ("gate_runqueue_wait_pct", _F), ("gate_involuntary_switches", _I),
    ("gate_steal_pct", _F), ("gate_siblings_busy_pct", _F), ("gate_other_cores_busy_pct", _F),
    ("gate_probe_drift_pct", _F), ("gate_open", _B), ("gate_reason", _S), ("gate_requeues", _I),
    ("gate_flagged", _B),
    # a label row (rounds folded, MeasurementStore.read(latest=True)): per-round values and spread
    ("n_rounds", _I), ("round_cpu_time_ms", pa.list_(_F)), ("round_latency_ms", pa.list_(_F)),
    ("cpu_time_round_spread", _F), ("latency_round_spread", _F),
    # derived targets
    ("throughput_samples_per_s", _F), ("peak_memory_mb", _F), ("energy_j", _F),
    ("energy_per_sample_j", _F), ("power_w", _F), ("gpu_memory_used_mb", _F), ("mig_profile", _S),
    # energy: a GPU energy meter read around a window of >= ENERGY_WINDOW_S of iterations;
    # energy_meter says which ("zeus": ZeusMonitor, "nvml": NVML's total-energy counter)
    ("energy_window_s", _F), ("energy_window_runs", _I), ("energy_meter", _S),
    # bookkeeping
    ("remeasured", _B), ("attempts", _I), ("setup_s", _F), ("worker_wall_s", _F),
    ("threads", _I), ("core", _I), ("runtime", _S), ("device", _S), ("precision", _S),
    # provenance
    ("python_version", _S), ("torch_version", _S), ("timm_version", _S),
    ("onnxruntime_version", _S), ("transformers_version", _S), ("cpu_model", _S),
    ("cpu_freq_mhz", _F), ("cpu_temperature_c", _F), ("machine_id", _S), ("os", _S),
    ("measured_at_utc", _S),
    # provenance of GPU rows (null on CPU platforms)
    ("gpu_name", _S), ("gpu_driver_version", _S), ("cuda_version", _S), ("cudnn_version", _S),
    ("tf32_matmul", _B), ("tf32_cudnn", _B), ("gpu_sm_clock_mhz", _F), ("gpu_temperature_c", _F),
    # the Ray node that measured the row (perfgraphs collect PLAN --ray; null on the local path)
    ("node_id", _S), ("node_ip", _S),
]

SCHEMA = pa.schema(COLUMNS)
# Columns added after the first shards were written; older files read them as null.
ADDED_COLUMNS = frozenset({"ref_run_ms", "energy_window_s", "energy_window_runs", "energy_meter", "gpu_name",
                           "gpu_driver_version", "cuda_version", "cudnn_version", "tf32_matmul",
                           "tf32_cudnn", "gpu_sm_clock_mhz", "gpu_temperature_c", "node_id", "node_ip"}) | frozenset(
    n for n, _ in COLUMNS if n in ("round", "latency_round_spread") or n.startswith(("cpu_time", "run_cpu", "ref_run_cpu",
                                                           "ref_baseline_cpu", "gate_", "n_rounds",
                                                           "round_")))
COLUMN_NAMES = [n for n, _ in COLUMNS]


def to_table(rows: list[dict]) -> pa.Table:
    """Rows (dicts) to a table in SCHEMA; unknown keys are a programming error."""
    unknown = {k for r in rows for k in r} - set(COLUMN_NAMES)
    if unknown:
        raise ValueError(f"columns not in the measurement schema: {sorted(unknown)}")
    return pa.Table.from_pylist([{n: r.get(n) for n in COLUMN_NAMES} for r in rows], schema=SCHEMA)
