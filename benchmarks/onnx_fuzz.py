"""ONNX import fuzzing: every mutated model either loads or fails with a typed perfgraphs error.

Run:  nice -n 10 python -m perfgraphs.benchmarks.onnx_fuzz [--cases 10000] [--seed 0] [--save DIR]
Each case mutates one of two small seed models (below; mutations in ``onnx_mutations.py``) and
goes through what ``perfgraphs graph`` does with a file: ``load_graph`` on the bytes, then the
summary and the JSON. Outcomes are counted as ``ok`` (a graph came out), a typed error class, or ``UNTYPED``
(anything else: a bug — the CLI would print "internal error"). ``--save`` writes each untyped
case as ``<n>-<ExceptionClass>.onnx.bin`` for a reproducer. Exit status 1 when any case is untyped.
"""

from __future__ import annotations

import argparse
import io
import random
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from perfgraphs.benchmarks.onnx_mutations import mutate
from perfgraphs.errors import PerfgraphsError
from perfgraphs.graph import load_graph


@dataclass(frozen=True)
class Seed:
    """A model to mutate and the arguments ``load_graph`` is called with for it."""

    name: str
    data: bytes
    kwargs: dict = field(default_factory=dict)


def seed_models() -> list[Seed]:
    """Two small real models: a CNN written by perfgraphs' exporter (weights as named graph
    inputs, ``perfgraphs.*`` metadata) and an attention encoder written by plain
    ``torch.onnx.export`` (initializers, no metadata) — both kinds of file a user hands us.
    The cases of a seed are reproducible for given torch and onnx versions (the exported bytes)."""
    import torch

    torch.manual_seed(0)
    return [Seed("cnn", _cnn_bytes(torch)), Seed("encoder", _encoder_bytes(torch), {"seq_len": 6})]


def _cnn_bytes(torch) -> bytes:
    from perfgraphs.graph.export import export_module
    from perfgraphs.graph.inputs import InputSpec

    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, padding=1, groups=2), torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(), torch.nn.Linear(8, 4),
    ).eval()
    return export_module(net, InputSpec(image_shape=(3, 16, 16)), source="fuzz-cnn").SerializeToString()


def _encoder_bytes(torch) -> bytes:
    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(32, 8)
            self.norm = torch.nn.LayerNorm(8)
            self.qkv = torch.nn.Linear(8, 24)
            self.out = torch.nn.Linear(8, 8)

        def forward(self, input_ids, attention_mask):
            x = self.norm(self.embed(input_ids))
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            scores = q @ k.transpose(1, 2) / 8 ** 0.5
            scores = scores + (1.0 - attention_mask[:, None, :].float()) * -1e4
            return self.out(torch.softmax(scores, dim=-1) @ v)

    ids = torch.ones((1, 6), dtype=torch.long)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            Encoder().eval(), (ids, ids), buffer, dynamo=False, opset_version=17,
            input_names=["input_ids", "attention_mask"], output_names=["hidden"],
            dynamic_axes={n: {0: "batch", 1: "sequence"} for n in ("input_ids", "attention_mask")},
        )
    return buffer.getvalue()


@dataclass
class Case:
    index: int
    model: str
    mutation: str
    data: bytes
    kwargs: dict


@dataclass
class Failure:
    case: Case
    error: BaseException
    where: str  # innermost frame of the traceback: file:line in function


def cases(models: list[Seed], n: int, seed: int):
    """``n`` reproducible cases: case ``i`` depends only on ``(seed, i)`` (and the seed models)."""
    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        base = models[i % len(models)]
        name, data = mutate(rng, base.data)
        kwargs = dict(base.kwargs, batch_size=rng.choice((1, 1, 2, 3)))
        yield Case(i, base.name, name, data, kwargs)


def run_case(case: Case) -> str | Failure:
    """Outcome name, or the :class:`Failure` of an untyped exception."""
    try:
        graph = load_graph(case.data, **case.kwargs)
        graph.static_features()
        graph.operator_histogram()
        graph.to_json()
        return "ok"
    except PerfgraphsError as exc:
        return type(exc).__name__
    except Exception as exc:
        return Failure(case, exc, _where(exc))


def _where(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"


def fuzz(n: int, seed: int = 0, models: list[Seed] | None = None, progress: bool = False):
    """``(outcome counts, mutation counts, failures, seconds)`` over ``n`` cases."""
    models = models or seed_models()
    outcomes: Counter = Counter()
    mutations: Counter = Counter()
    failures: list[Failure] = []
    start = time.perf_counter()
    for case in cases(models, n, seed):
        result = run_case(case)
        for step in case.mutation.split("+"):
            mutations[step] += 1
        if isinstance(result, Failure):
            failures.append(result)
            outcomes["UNTYPED"] += 1
        else:
            outcomes[result] += 1
        if progress and (case.index + 1) % 1000 == 0:
            print(f"  {case.index + 1:,} cases, {outcomes['UNTYPED']} untyped, "
                  f"{time.perf_counter() - start:.0f}s", flush=True)
    return outcomes, mutations, failures, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, default=None, help="folder for untyped cases")
    args = parser.parse_args(argv)

    outcomes, mutations, failures, seconds = fuzz(args.cases, args.seed, progress=True)
    print(f"\n{args.cases:,} cases (seed {args.seed}) in {seconds:.0f}s "
          f"({args.cases / seconds:.0f} cases/s)")
    for outcome, count in outcomes.most_common():
        print(f"  {outcome:28s} {count:6,}")
    print("mutations applied: " + ", ".join(f"{k} {v}" for k, v in sorted(mutations.items())))
    kinds = Counter(f"{type(f.error).__name__} at {f.where}" for f in failures)
    for kind, count in kinds.most_common():
        print(f"  untyped {count:5,}  {kind}")
    for failure in failures[:20]:
        c = failure.case
        print(f"UNTYPED case {c.index} ({c.model}, {c.mutation}): {type(failure.error).__name__}: "
              f"{str(failure.error)[:120]} at {failure.where}")
    if args.save and failures:
        args.save.mkdir(parents=True, exist_ok=True)
        for failure in failures:
            path = args.save / f"{failure.case.index}-{type(failure.error).__name__}.onnx.bin"
            path.write_bytes(failure.case.data)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
