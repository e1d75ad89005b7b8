"""Turn (model, input, batch, platform, mode) into one callable iteration plus a matching timer.

Why weights are re-initialised: the zoo builds models with zero-filled parameters (random init is
skipped for speed). Zeros are fine for graph extraction but not for timing: all-zero activations
can hit fast paths (sparse/zero skipping in some kernels, denormal-free arithmetic everywhere,
trivially predictable int8 quantisation ranges). A cheap deterministic normal(0, 0.02) fill under a
fixed seed gives realistic, reproducible values at a fraction of the cost of timm's own init.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager

from perfgraphs.collect.errors import CollectError
from perfgraphs.collect.platforms import CollectorPlatform

WEIGHT_SEED = 0
WEIGHT_STD = 0.02


@dataclass
class Prepared:
    """A ready-to-time iteration. ``context`` wraps the whole timed loop (not each iteration),
    so entering ``inference_mode`` is not counted in per-iteration times."""

    step: Callable[[], Any]
    context: Callable[[], ContextManager] = contextlib.nullcontext
    cuda: bool = False
    cleanup: Callable[[], None] = lambda: None
    notes: dict = field(default_factory=dict)


def build_torch(model_name: str, image_size: int | None, seq_len: int | None, batch_size: int,
                for_export: bool = False):
    """The model with fixed random weights and its inputs; ``for_export`` builds the explicit
    attention path an ONNX export needs (eager PyTorch measures the fused path users run)."""
    import torch

    from perfgraphs.graph.zoo import build_model, example_inputs

    image_shape = (3, image_size, image_size) if image_size else None
    model, spec = build_model(model_name, image_shape=image_shape, seq_len=seq_len, for_export=for_export)
    torch.manual_seed(WEIGHT_SEED)
    with torch.no_grad():
        for p in model.parameters():
            torch.nn.init.normal_(p, std=WEIGHT_STD)
    inputs = example_inputs(spec.with_batch(batch_size))
    if "input" in inputs:  # images: non-constant pixels, same reason as the weights
        inputs["input"] = torch.randn(inputs["input"].shape, generator=torch.Generator().manual_seed(1))
    return model, inputs


def _first_tensor(out):
    import torch

    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return _first_tensor(out[0])
    return out.last_hidden_state  # transformers ModelOutput


def prepare(platform: CollectorPlatform, mode: str, model_name: str, image_size: int | None,
            seq_len: int | None, batch_size: int) -> Prepared:
    if mode == "llm" and not model_name.startswith("hf:"):
        raise CollectError(f"mode 'llm' needs an hf: model, got {model_name}")
    if platform.runtime == "ort":
        if mode == "train":
            raise CollectError(f"{platform.name} measures inference only, not mode 'train'")
        return _prepare_ort(platform, model_name, image_size, seq_len, batch_size)
    return _prepare_torch(platform, mode, model_name, image_size, seq_len, batch_size)


def _prepare_torch(platform, mode, model_name, image_size, seq_len, batch_size) -> Prepared:
    import torch

    model, inputs = build_torch(model_name, image_size, seq_len, batch_size)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[platform.precision]
    device = torch.device("cuda" if platform.is_cuda else "cpu")
    model = model.to(device=device, dtype=dtype)
    args = [t.to(device=device, dtype=dtype) if t.is_floating_point() else t.to(device)
            for t in inputs.values()]
    if mode == "train":
        model.train()
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

        def step():
            optimizer.zero_grad(set_to_none=True)
            loss = _first_tensor(model(*args)).float().mean()
            loss.backward()
            optimizer.step()

        return Prepared(step=step, cuda=platform.is_cuda)
    model.eval()
    return Prepared(step=lambda: model(*args), context=torch.inference_mode, cuda=platform.is_cuda)


def export_with_weights(model, inputs: dict, path: str) -> None:
    """ONNX with weights at a fixed batch (ORT needs real initialisers; the graph package's
    export leaves weights out on purpose)."""
    import warnings

    import torch

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs.values()), path, dynamo=False, export_params=True,
                          input_names=list(inputs), opset_version=17, do_constant_folding=True)


def export_cache_dir() -> Path:
    from perfgraphs.paths import perfgraphs_home

    return perfgraphs_home() / "cache" / "ort-export"


def _export_key(model_name: str, image_size, seq_len, batch_size: int) -> str:
    import hashlib

    import timm
    import torch

    ident = json.dumps([model_name, image_size, seq_len, batch_size, WEIGHT_SEED, WEIGHT_STD,
                        torch.__version__, timm.__version__, "explicit-attention"])
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


def _cached_export(model_name, image_size, seq_len, batch_size, workdir: str) -> tuple[str, dict]:
    """The fp32 ONNX export and its input feeds, reused from the previous worker when it exported
    the same (model, input, batch) — the ORT platforms of one input are adjacent in a campaign's
    order, and building + exporting a model costs more than measuring it. One slot: the cache
    holds only the latest export, so it never grows beyond one model."""
    import gc

    import numpy as np

    cache = export_cache_dir()
    key = _export_key(model_name, image_size, seq_len, batch_size)
    onnx_path, feeds_path = cache / f"{key}.onnx", cache / f"{key}.npz"
    path = os.path.join(workdir, "model.onnx")
    try:  # private copies first: another campaign's worker may replace the slot meanwhile
        with np.load(feeds_path) as z:
            feeds = {k: z[k] for k in z.files}
        try:
            os.link(onnx_path, path)
        except OSError:
            shutil.copyfile(onnx_path, path)
        return path, feeds
    except (OSError, ValueError):  # no entry, or a broken one: export afresh
        with contextlib.suppress(OSError):
            os.unlink(path)
    # the explicit attention path, as the graph pool exports it: timm's fused attention does not
    # trace for some models ("scaled_dot_product_attention(): argument 'is_causal' must be bool")
    model, inputs = build_torch(model_name, image_size, seq_len, batch_size, for_export=True)
    export_with_weights(model, inputs, path)
    feeds = {k: v.numpy() for k, v in inputs.items()}
    del model
    gc.collect()
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        cache.mkdir(parents=True, exist_ok=True)
        for old in cache.iterdir():
            old.unlink()
        np.savez(cache / f"{key}.tmp.npz", **feeds)
        shutil.copyfile(path, cache / f"{key}.tmp.onnx")
        os.replace(cache / f"{key}.tmp.onnx", onnx_path)
        os.replace(cache / f"{key}.tmp.npz", feeds_path)  # written last: it marks the entry complete
    return path, feeds


def _prepare_ort(platform, model_name, image_size, seq_len, batch_size) -> Prepared:
    import onnxruntime as ort

    workdir = tempfile.mkdtemp(prefix="perfgraphs-ort-")
    fp32_path, feeds = _cached_export(model_name, image_size, seq_len, batch_size, workdir)
    path = fp32_path
    if platform.precision == "int8":
        from onnxruntime.quantization import QuantType, quantize_dynamic

        path = os.path.join(workdir, "model.int8.onnx")
        quantize_dynamic(fp32_path, path, weight_type=QuantType.QInt8)
    options = ort.SessionOptions()
    options.intra_op_num_threads = platform.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def cleanup():
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        os.rmdir(workdir)

    return Prepared(step=lambda: session.run(None, feeds), cleanup=cleanup,
                    notes={"ort_providers": ",".join(session.get_providers())})


# ---------------------------------------------------------------------------------------------
# Timing


@dataclass
class Timings:
    """Per-run times of one loop, in ms. ``cpu_ms``: CPU time of each run (CPU platforms; empty on
    CUDA); ``ref_wall_ms`` / ``ref_cpu_ms``: the reference probe after each run, when one ran."""

    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    ref_wall_ms: list[float] = field(default_factory=list)
    ref_cpu_ms: list[float] = field(default_factory=list)


def cpu_clock(threads: int) -> tuple[Callable[[], int], str]:
    """The CPU-time clock of a CPU platform and its name: the measuring thread's own clock
    (CLOCK_THREAD_CPUTIME_ID) when the platform computes on that one thread, else the process's
    (all threads; the row records the thread count beside it)."""
    if threads == 1:
        return time.thread_time_ns, "thread"
    return time.process_time_ns, "process"


def timed_loop(prepared: Prepared, keep_going: Callable[[int, float], bool],
               probe: "ReferenceProbe | None" = None,
               clock_cpu: Callable[[], int] | None = None) -> Timings:
    """Run iterations while ``keep_going(count, elapsed_timed_s)``; per-iteration times in ms.

    CPU: perf_counter_ns (wall) and ``clock_cpu`` (CPU time, see :func:`cpu_clock`) read
    immediately around the call. Wall time includes whoever else held the core meanwhile; CPU time
    only what this thread (process) computed. CUDA: events recorded around the call and
    synchronised after it, so the time is GPU time of that iteration, not launch time.
    With a ``probe`` (CPU), a short reference workload runs after every iteration, outside the
    timed region: per-run drift calibration and the quiet gate's probe drift.
    """
    out = Timings()
    total_s = 0.0
    step = prepared.step
    if prepared.cuda:
        import torch

        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        while keep_going(len(out.wall_ms), total_s):
            start.record()
            step()
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
            out.wall_ms.append(ms)
            total_s += ms / 1e3
        return out
    clock = time.perf_counter_ns
    cpu = clock_cpu or time.thread_time_ns
    while keep_going(len(out.wall_ms), total_s):
        c0 = cpu()
        t0 = clock()
        step()
        t1 = clock()
        c1 = cpu()
        ms = (t1 - t0) / 1e6
        out.wall_ms.append(ms)
        out.cpu_ms.append((c1 - c0) / 1e6)
        total_s += ms / 1e3
        if probe is not None:
            wall, cpu_ms = probe()
            out.ref_wall_ms.append(wall)
            out.ref_cpu_ms.append(cpu_ms)
    return out


ENERGY_WINDOW_S = 1.0


def energy_window(prepared: Prepared, meter, min_window_s: float = ENERGY_WINDOW_S,
                  synchronize: Callable[[], None] | None = None) -> dict:
    """Energy of one iteration from a GPU energy meter (:mod:`perfgraphs.collect.energy`: Zeus
    or NVML's counter) read around a window of iterations run exactly like the timed loop (one
    synchronised iteration after another); ``energy_meter`` names the meter in the row.

    Why a separate window: the timed runs of a fast network last a few milliseconds in total,
    shorter than the counter's update period (NVML refreshes it every few tens of ms), so their
    difference would be mostly quantisation. The window runs until ``min_window_s`` has passed.
    Empty when the meter is unreadable or measured nothing (nothing is estimated).
    """
    if synchronize is None:
        import torch

        synchronize = torch.cuda.synchronize
    synchronize()
    if not meter.begin():
        return {}
    runs, t0 = 0, time.perf_counter()
    while True:
        prepared.step()
        synchronize()
        runs += 1
        window_s = time.perf_counter() - t0
        if window_s >= min_window_s:
            break
    joules = meter.end()
    if joules is None:
        return {}
    return {"energy_j": joules / runs, "power_w": joules / window_s,
            "energy_window_s": window_s, "energy_window_runs": runs, "energy_meter": meter.name}


# ---------------------------------------------------------------------------------------------
# Reference workload


REF_MATMUL_SIZE = 256
REF_MATMULS = 36  # ~20 ms on one 2020s server core
REF_PROBE_MATMULS = 4  # the per-iteration probe: ~2 ms, reported in REF_MATMULS units


class ReferenceProbe:
    """The reference workload, cut short to run after every timed iteration (CPU only).

    Its result is scaled to the full reference's unit (``REF_MATMULS`` matmuls), so it is
    comparable with the campaign baseline measured by :func:`reference_ms` (wall) and
    :func:`reference_cpu_ms` (CPU time).
    """

    def __init__(self) -> None:
        import torch

        g = torch.Generator().manual_seed(2)
        self._a = torch.randn(REF_MATMUL_SIZE, REF_MATMUL_SIZE, generator=g)
        self._b = torch.randn(REF_MATMUL_SIZE, REF_MATMUL_SIZE, generator=g)
        self._out = torch.empty_like(self._a)
        torch.mm(self._a, self._b, out=self._out)

    def __call__(self) -> tuple[float, float]:
        """(wall ms, CPU ms of this thread), both in full-reference units. One untimed product
        first: after a large model's run the operands are out of the cache, and the probe should
        see the core's speed, not the previous run's footprint (a cold probe read +15-50 %)."""
        import torch

        torch.mm(self._a, self._b, out=self._out)
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        for _ in range(REF_PROBE_MATMULS):
            torch.mm(self._a, self._b, out=self._out)
        t1, c1 = time.perf_counter_ns(), time.thread_time_ns()
        scale = REF_MATMULS / REF_PROBE_MATMULS / 1e6
        return (t1 - t0) * scale, (c1 - c0) * scale


def reference_cpu_ms(repeats: int = 5) -> float:
    """The reference workload's median CPU time (this thread), in the same unit as the probe's."""
    import statistics

    probe = ReferenceProbe()
    return statistics.median(probe()[1] for _ in range(repeats * REF_MATMULS // REF_PROBE_MATMULS))


def reference_ms(cuda: bool = False, repeats: int = 5) -> float:
    """Median time of a fixed matmul loop: a drift probe for clock/thermal/neighbour changes.

    It runs in the worker, on the same core and thread count as the configuration it brackets.
    """
    import statistics

    import torch

    if cuda:
        a = torch.ones(2048, 2048, device="cuda")
        samples = []
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(REF_MATMULS):
                a @ a
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        return statistics.median(samples)
    g = torch.Generator().manual_seed(2)
    a = torch.randn(REF_MATMUL_SIZE, REF_MATMUL_SIZE, generator=g)
    b = torch.randn(REF_MATMUL_SIZE, REF_MATMUL_SIZE, generator=g)
    out = torch.empty_like(a)
    torch.mm(a, b, out=out)  # first call allocates / picks the kernel
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(REF_MATMULS):
            torch.mm(a, b, out=out)
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(samples)
