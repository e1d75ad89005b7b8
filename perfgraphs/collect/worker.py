"""What runs inside the isolated per-configuration process.

Every configuration gets a fresh process (forked from a server that has already imported torch,
timm and onnxruntime, so isolation costs milliseconds, not the seconds of a cold import). A crash,
a leak, an allocator that keeps memory, or a thread pool left in a strange state cannot leak into
the next configuration, and peak memory is that process's own.

Peak memory on CPU: the kernel's peak-RSS counter is reset (``/proc/self/clear_refs``) after the
process's baseline is read, so ``peak_memory_mb`` = peak RSS during build + warm-up + timing minus
the RSS before the model existed: weights, activations, allocator slack and runtime workspaces.
Energy on CPU is stored as null: this machine exposes no RAPL counter, and an estimate would be
indistinguishable from a measurement in the dataset. On CUDA it is the GPU's energy over a window
of at least ``backends.ENERGY_WINDOW_S`` of iterations (see ``backends.energy_window``), read by
Zeus's ``ZeusMonitor`` where it is installed, else by NVML's whole-board energy counter (the row's
``energy_meter``, :mod:`perfgraphs.collect.energy`), and peak memory is PyTorch's peak allocated
device memory.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
import traceback
import uuid

from perfgraphs.collect import backends, gate, nvml
from perfgraphs.collect.energy import gpu_energy_meter
from perfgraphs.collect.environment import (environment_columns, peak_rss_mb, reset_peak_rss,
                                            rss_mb)
from perfgraphs.collect.plan import ConfigSpec
from perfgraphs.collect.platforms import get_platform, pin_process
from perfgraphs.collect.stats import run_stats

PROBE_SAMPLES = 5  # reference probes before and after the timed runs (protocols without per-run probes)
OOM_MARKERS = ("out of memory", "can't allocate memory", "cannot allocate memory", "std::bad_alloc",
               "failed to allocate")


def classify(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "oom"
    text = str(exc).lower()
    return "oom" if any(m in text for m in OOM_MARKERS) else "error"


def error_message(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:500]


def base_row(config: ConfigSpec) -> dict:
    plat = get_platform(config.platform)
    return {
        "key": config.key, "measurement_id": uuid.uuid4().hex, "suite": config.suite,
        "family": config.family, "model": config.model, "input": config.input_label,
        "image_size": config.image_size, "seq_len": config.seq_len, "batch_size": config.batch_size,
        "platform": config.platform, "mode": config.mode, "protocol": config.protocol.name,
        "threads": plat.threads, "runtime": plat.runtime, "device": plat.device,
        "precision": plat.precision,
    }


@contextlib.contextmanager
def _quiet_fds():
    """Silence file descriptors 1 and 2: a failing ONNX export prints the whole TorchScript graph
    (thousands of lines) from C++, which would bury the campaign log; the error itself is kept."""
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def graph_facts(config: ConfigSpec) -> dict:
    """Structure hash (join key to the graph datasets) and GMACs per sample."""
    try:
        from perfgraphs.graph import load_graph

        image_shape = (3, config.image_size, config.image_size) if config.image_size else None
        with _quiet_fds():
            g = load_graph(config.model, batch_size=1, image_shape=image_shape, seq_len=config.seq_len)
        return {"structure_hash": g.structure_hash,
                "graph_gmacs_per_sample": g.static_features()["total_macs"] / 1e9}
    except Exception as exc:  # the measurement stands even if the graph cannot be extracted
        return {"graph_error": error_message(exc)}


def measure(config: ConfigSpec, graph: dict | None = None) -> dict:
    """Measure one configuration in this process; never raises (errors become the row's status)."""
    started = time.perf_counter()
    row = base_row(config)
    plat = get_platform(config.platform)
    try:
        plat.check_available()
        if config.protocol.cooldown_s:
            time.sleep(config.protocol.cooldown_s)
        row["core"] = None if plat.is_cuda else pin_process(plat, config.core)
        cuda = plat.is_cuda
        row["ref_before_ms"] = backends.reference_ms(cuda)
        base_mb = rss_mb()
        reset_peak_rss()
        if cuda:
            import torch

            torch.cuda.reset_peak_memory_stats()
            gpu_mem0 = nvml.memory_used_mb()
        t0 = time.perf_counter()
        prepared = backends.prepare(plat, config.mode, config.model, config.image_size,
                                    config.seq_len, config.batch_size)
        row["setup_s"] = time.perf_counter() - t0
        clock_cpu, cpu_kind = backends.cpu_clock(plat.threads)
        with prepared.context():
            probe = None if cuda else backends.ReferenceProbe()
            warm = backends.timed_loop(prepared, config.protocol.keep_warming, clock_cpu=clock_cpu)
            around = config.protocol.probe_each_run is False and probe is not None
            probes_before = [probe() for _ in range(PROBE_SAMPLES)] if around else []
            seen = gate.snapshot()
            timed = backends.timed_loop(prepared, config.protocol.keep_timing,
                                        None if around else probe, clock_cpu)
            row.update(gate.observe(seen, gate.snapshot(), row["core"], config.watch_cores))
            if around:  # the probe's CPU time just before and just after the timed runs
                timed.ref_cpu_ms = [c for _, c in probes_before + [probe() for _ in range(PROBE_SAMPLES)]]
            energy = backends.energy_window(prepared, gpu_energy_meter()) if cuda else {}
        if cuda:
            import torch

            row["peak_memory_mb"] = torch.cuda.max_memory_allocated() / 2**20
            used = nvml.memory_used_mb()
            row["gpu_memory_used_mb"] = None if used is None or gpu_mem0 is None else used - gpu_mem0
            row["mig_profile"] = nvml.mig_profile()
        else:
            row["peak_memory_mb"] = max(peak_rss_mb() - base_mb, 0.0)
        prepared.cleanup()
        del prepared
        row["ref_after_ms"] = backends.reference_ms(cuda)
        times, refs = timed.wall_ms, timed.ref_wall_ms
        stats = run_stats(times)
        row.update(stats.as_columns("latency"))
        row.update(latency_spread=stats.spread, n_warmup_runs=len(warm.wall_ms), run_times_ms=times,
                   ref_run_ms=refs or None,
                   ref_ms=statistics.median(refs) if refs else (row["ref_before_ms"] + row["ref_after_ms"]) / 2,
                   throughput_samples_per_s=config.batch_size / (stats.median_ms / 1e3),
                   status="ok")
        if timed.cpu_ms:
            cpu_stats = run_stats(timed.cpu_ms)
            row.update(cpu_time_ms=cpu_stats.median_ms, cpu_time_mad_ms=cpu_stats.mad_ms,
                       run_cpu_times_ms=timed.cpu_ms, cpu_time_kind=cpu_kind,
                       ref_run_cpu_ms=timed.ref_cpu_ms or None)
        if energy:
            row.update(energy, energy_per_sample_j=energy["energy_j"] / config.batch_size)
        if cuda:
            row.update(cuda_columns())
    except BaseException as exc:  # noqa: BLE001 - a failing config must become a row
        if isinstance(exc, KeyboardInterrupt):
            raise
        row.update(status=classify(exc), error=error_message(exc))
        if not isinstance(exc, Exception):
            row["error"] += " | " + traceback.format_exc(limit=2).splitlines()[-1]
    row.update(graph if graph is not None else graph_facts(config))
    row.update(environment_columns())
    row["worker_wall_s"] = time.perf_counter() - started
    return row


def cuda_columns() -> dict:
    """Provenance of a GPU row: the card, driver, CUDA/cuDNN builds, the TF32 switches that change
    fp32 kernels on Ampere and newer, and SM clock / temperature at the end of the measurement."""
    import torch

    return {"gpu_name": torch.cuda.get_device_name(0), "gpu_driver_version": nvml.driver_version(),
            "cuda_version": torch.version.cuda,
            "cudnn_version": str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None,
            "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
            "tf32_cudnn": bool(torch.backends.cudnn.allow_tf32),
            "gpu_sm_clock_mhz": nvml.sm_clock_mhz(), "gpu_temperature_c": nvml.temperature_c()}


def child_main(conn, config: ConfigSpec, graph: dict | None) -> None:
    """Entry point of the forked worker: measure, send the row, exit."""
    try:
        conn.send(measure(config, graph))
    except (BrokenPipeError, EOFError):
        pass  # the campaign was stopped while this config ran: nobody is left to receive the row
    finally:
        conn.close()


def probe_main(conn, platform: str, core: int | None) -> None:
    """Entry point for the hardware probe and the campaign's baseline reference measurement."""
    try:
        from perfgraphs.collect.hardware import probe

        result = probe(platform, core).to_dict()
        cuda = get_platform(platform).is_cuda
        result["ref_ms"] = backends.reference_ms(cuda)
        result["ref_cpu_ms"] = None if cuda else backends.reference_cpu_ms()
        if not cuda and result.get("core") is not None:
            # which other cores slow this one (hidden SMT siblings of a VM): the gate watches them
            others = sorted(set(os.sched_getaffinity(os.getppid())) - {result["core"]})
            probe_cpu = backends.ReferenceProbe()
            slowdown = gate.interfering_cores(others, lambda: probe_cpu()[1])
            result["core_interference"] = {str(c): None if v is None else round(v, 4)
                                           for c, v in slowdown.items()}
            # inconclusive (that core was busy) counts as interfering: the gate then waits for it.
            # In a VM, every vCPU sharing the last-level cache counts too: a busy loop on the other
            # vCPU of the EPYC guest made resnet10t's fastest run 10-23 % slower in CPU time while
            # this matmul probe barely moved (hidden host hyperthreads, shared cache and bandwidth)
            shared = set(gate.llc_sharing(result["core"])) & set(others) if gate.virtualized() else set()
            result["interfering_cores"] = sorted(shared | {c for c, v in slowdown.items()
                                                           if v is None or v > gate.INTERFERENCE_MIN})
        conn.send({"ok": True, "probe": result})
    except Exception as exc:
        try:
            conn.send({"ok": False, "error": error_message(exc)})
        except (BrokenPipeError, EOFError):
            pass  # the campaign is gone
    finally:
        conn.close()
