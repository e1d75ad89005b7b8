"""``perfgraphs predict <source>``: latency, memory, energy, MIG profile and cost of a model on a
measured platform; ``perfgraphs predict train`` trains the predictors it uses;
``perfgraphs predict platforms`` lists what can be asked; ``perfgraphs predict convert`` adds the ONNX
form of the booster to artifacts trained before it was part of them; ``perfgraphs predict calibrate``
measures reference models here and scales a platform's times to this machine (``--calibrated``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from perfgraphs.registry import CPU_TORCH_FP32, TABULAR_ROWS

# what each command word takes: `perfgraphs predict train --help` says this, not the predict help
_COMMAND_HELP = {
    "train": "usage: perfgraphs predict train [--platform NAME [--mode infer|train]] [--artifacts DIR]\n\n"
             "Train the predictors `perfgraphs predict` uses (one per platform and target with labels) on the\n"
             "local dataset builds and write them to --artifacts (default: the package's artifacts folder).\n"
             "--platform NAME (and --mode) trains that platform's only.",
    "platforms": "usage: perfgraphs predict platforms [--artifacts DIR]\n\n"
                 "List the platforms with labels, their hardware, targets and label counts.",
    "convert": "usage: perfgraphs predict convert [--artifacts DIR]\n\n"
               "Add the booster's ONNX form to predictor artifacts trained before it was part of them (format 1).",
    "calibrate": "usage: perfgraphs predict calibrate [--platform NAME] [--mode infer|train] [--core N]\n\n"
                 "Measure 10 reference models on this machine (about a minute, the collector's protocol of the\n"
                 "platform's labels, on core N: default the last) and write the factor that scales the platform's\n"
                 "times to this machine, its spread and the calibration's own error. Then\n"
                 "`perfgraphs predict MODEL --calibrated` answers for this machine.",
}


class _Help(argparse.Action):
    """-h/--help: the help of the command word given before it (train / platforms / convert), else
    the predict help (argparse has read the positional source by the time it meets --help)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        text = _COMMAND_HELP.get(getattr(namespace, "source", None) or "")
        if text is None:
            parser.print_help()
        else:
            print(text)
        parser.exit()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("predict", help="predict latency / memory / energy / MIG profile / cost of a model",
                       add_help=False,
                       description="SOURCE: timm:<arch>, torchvision:<arch>, hf:<id> or an ONNX file; "
                                   "`perfgraphs predict train` trains the predictors, `perfgraphs predict platforms` "
                                   "lists the platforms with labels, `perfgraphs predict convert` adds the booster's ONNX form "
                                   "to artifacts of format 1.")
    p.add_argument("-h", "--help", action=_Help, help="show this help (after train / platforms / convert: theirs)")
    p.add_argument("source", help="model (timm:resnet50, hf:bert-base-uncased, model.onnx), or train / platforms / convert")
    p.add_argument("--batch", default="1", help="batch size (default 1), or a comma-separated sweep of up to 8 "
                                                "(1,8,32): one table, a column per batch")
    p.add_argument("--compare", action="append", default=[], metavar="OTHER_SOURCE",
                   help="a second model, side by side with SOURCE at each batch")
    p.add_argument("--input", default=None, help="per-sample image shape C,H,W (e.g. 3,224,224)")
    p.add_argument("--seq-len", type=int, default=None, help="sequence length (hf: models, text ONNX files)")
    p.add_argument("--platform", default=None, help="platform with labels (default cpu-torch-fp32; "
                                                     "`perfgraphs predict platforms` lists them)")
    p.add_argument("--mode", default="infer", choices=("infer", "train"), help="a forward pass or a training step")
    p.add_argument("--html", type=Path, default=None, help="write a self-contained HTML report here")
    p.add_argument("--json", action="store_true", help="print the prediction (or the comparison) as JSON")
    p.add_argument("--prices", type=Path, default=None, help="price table overriding the committed one")
    p.add_argument("--inferences", type=int, default=1_000_000, help="inferences to price (default 1,000,000)")
    p.add_argument("--steps", type=int, default=10_000, help="training steps to price (default 10,000)")
    p.add_argument("--artifacts", type=Path, default=None, help="predictor artifacts folder (default: the package's)")
    p.add_argument("--calibrated", action="store_true",
                   help="scale the times to this machine (after `perfgraphs predict calibrate`)")
    p.add_argument("--core", type=int, default=None, help="calibrate: the core to measure on (default: the last)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from perfgraphs.errors import InvalidInputSpecError

    if args.source == "train":
        return _train(args)
    if args.source == "platforms":
        return _platforms(args)
    if args.source == "convert":
        return _convert(args)
    if args.source == "calibrate":
        return _calibrate(args)
    for name in ("inferences", "steps"):
        if getattr(args, name) < 1:
            raise InvalidInputSpecError(f"--{name} must be at least 1")
    from perfgraphs.predict import predict, predict_many
    from perfgraphs.predict.sweep import parse_batches

    batches = parse_batches(args.batch)
    sources = [args.source, *args.compare]
    kwargs = {"artifacts": args.artifacts} if args.artifacts else {}
    kwargs.update(input=args.input, seq_len=args.seq_len, platform=args.platform or CPU_TORCH_FP32, mode=args.mode,
                  prices=args.prices, inferences=args.inferences, train_steps=args.steps, calibrated=args.calibrated)
    if len(sources) == 1 and len(batches) == 1:  # one model at one batch: the full answer, as always
        result = predict(args.source, batch=batches[0], **kwargs)
    else:
        result = predict_many(sources, batches, **kwargs)
    if args.html is not None:
        _write_html(result, args.html)
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=1, default=str) + "\n")
    else:
        if len(sources) == 1 and len(batches) == 1:
            _print(result)
        else:
            _print_comparison(result)
        if args.html is not None:
            print(f"report: {args.html}")
    return 0


def _calibrate(args) -> int:
    import os

    from perfgraphs.errors import InvalidInputSpecError
    from perfgraphs.predict.calibration import calibrate
    from perfgraphs.predict.platforms import find_platform

    plat = find_platform(args.platform or CPU_TORCH_FP32, args.mode)  # a wrong platform: one line, no measuring
    if args.core is not None and not 0 <= args.core < (os.cpu_count() or 1):
        raise InvalidInputSpecError(f"--core must be a core of this machine (0-{(os.cpu_count() or 1) - 1}), "
                                    f"got {args.core}")
    cal = calibrate(plat.name, plat.mode, core=args.core)
    s = cal["spread"]
    print(f"{cal['platform']} ({cal['mode']}) on this machine ({cal['cpu_model']}): x{cal['factor']:.3f} the labels' "
          f"times ({cal['labels_from']})")
    print(f"  spread: ratios {s['min_ratio']:.3f}-{s['max_ratio']:.3f}, geometric sd {s['geometric_sd']:.3f} over "
          f"{cal['n_references']} references")
    print(f"  calibration's own error: ±{cal['error_pct']:.1f} % ({cal['error_how']})")
    print(f"written to {cal['path']}; `perfgraphs predict MODEL --calibrated` answers for this machine")
    return 0


def _write_html(result, path: Path) -> None:
    from perfgraphs.predict.report import render_comparison_html, render_html
    from perfgraphs.predict.result import Comparison

    text = render_comparison_html(result) if isinstance(result, Comparison) else render_html(result)
    try:
        path.write_text(text)
    except OSError as exc:
        from perfgraphs.errors import FileIOError

        raise FileIOError(f"cannot write {path}: {exc.strerror or exc}") from None


def _print_comparison(comparison) -> None:
    """One compact table: a row per target (recommended first), a column per (source, batch), the
    cells of the HTML report's comparison table; then what was refused, and why, once per column."""
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.predict.report import comparison_cell, comparison_rows, cost_cell, cost_label

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:  # piped: no terminal width to wrap the columns to
        console = Console(width=200)
    first = comparison.predictions[0]
    table = Table(title=f"{first.platform} ({first.mode}) · {first.hardware}")
    table.add_column("target")
    for source, batch in comparison.columns:
        table.add_column(f"{source}\nbatch {batch}", justify="right")
    for target, role, cells in comparison_rows(comparison):
        table.add_row(target + (f" ({role})" if role else ""),
                      *(comparison_cell(t, b) for (_, b), t in zip(comparison.columns, cells)))
    table.add_section()
    table.add_row(cost_label(comparison), *(cost_cell(p) for p in comparison.predictions))
    console.print(table)
    console.print("cells: predicted value [80 % interval]; @bN: asked at the batch its labels were measured at; "
                  "—: not predicted for that model", highlight=False)
    for (source, batch), p in zip(comparison.columns, comparison.predictions):
        refused = [t for t in p.targets if t.refused]
        if refused:
            console.print(f"{source} · batch {batch}: refused {', '.join(t.target for t in refused)}: "
                          f"{refused[0].distribution.reason}", highlight=False)


def _print(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.predict.report import fmt

    console = Console()
    g = result.graph
    table = Table(title=f"{result.source} · batch {g.batch_size} · {result.platform} ({result.mode}) · "
                        f"{result.hardware}")
    for col in ("target", "predicted", "80 % interval", "90 % interval", "verdict", "nearest measured"):
        table.add_column(col, justify="right" if "interval" in col or col == "predicted" else "left")
    for t in result.targets:
        at = f" @b{t.batch_size}" if t.batch_size != g.batch_size else ""
        role = "" if not t.why else (" (recommended)" if t.recommended else " (secondary)")
        near = f"{t.neighbours[0].name}: {fmt(t.neighbours[0].label)} {t.unit}" if t.neighbours else ""
        spans = [(f"{fmt(i.low)} – {fmt(i.high)}" if (i := t.interval(lv)) else "—") for lv in (0.8, 0.9)]
        colour = {"answered": "green", "refused": "red"}.get(t.distribution.verdict, "yellow")
        table.add_row(t.target + at + role, "refused" if t.value is None else f"{fmt(t.value)} {t.unit}", *spans,
                      f"[{colour}]{t.distribution.verdict}[/{colour}]", near)
    console.print(table)
    for t in result.targets:
        console.print(f"[bold]{t.target}[/bold]: {t.distribution.verdict}: {t.distribution.reason}"
                      + (f"; {t.why}" if t.why else "")
                      + f" (predictor {t.predictor}; MAPE {t.error.mape_pct:.1f} % from {t.error.source})",
                      highlight=False)
    if result.calibration:
        console.print(f"[bold]calibrated[/bold]: {result.calibration}", highlight=False)
    if result.mig is not None:
        choices = ", ".join(f"{c.gpu} {c.profile or 'none fits'}" for c in result.mig.choices)
        console.print(f"MIG (peak {fmt(result.mig.peak_memory_mb)} MB + {result.mig.margin_pct:.1f} %): {choices}")
        console.print(f"  caveat: {result.mig.caveat}")
    elif result.mig_note:
        console.print(f"MIG: {result.mig_note}")
    if result.cost is not None:
        c = result.cost
        span = f" (80 % interval ${fmt(c.usd_low)} – ${fmt(c.usd_high)})" if c.usd_low is not None else ""
        console.print(f"cost: {c.units:,} {c.unit}s ≈ ${fmt(c.usd)}{span} at the predicted {c.time_target} "
                      f"({c.price.offer}, ${c.price.usd_per_hour:g}/h, {c.price.source_url}, {c.price.source_date})",
                      highlight=False)
    elif result.cost_note:
        console.print(f"cost: {result.cost_note}")


def _train(args) -> int:
    from perfgraphs.predict.artifacts import ARTIFACTS_DIR, train_all

    out = args.artifacts or ARTIFACTS_DIR

    def progress(pt, meta):
        if meta is None:
            print(f"{pt.key}: fewer labeled rows than a predictor needs; skipped", flush=True)
        else:
            h = meta["heldout"]
            print(f"{pt.key}: {meta['n_labeled']} labeled rows, held-out MAPE {h['mape_pct']:.1f} %, "
                  f"Acc(10 %) {h['acc_10_pct']:.0f} %", flush=True)

    metas = train_all(args.platform, args.mode if args.platform else None, out, on_progress=progress)
    print(f"{len(metas)} artifacts in {out}")
    return 0


def _convert(args) -> int:
    from perfgraphs.predict.artifacts import ARTIFACTS_DIR, convert_all

    out = args.artifacts or ARTIFACTS_DIR
    metas = convert_all(out)
    for m in metas:
        print(f"{m['key']}: ONNX booster, max relative difference from XGBoost "
              f"{m['booster_onnx']['max_rel_diff_vs_xgboost']:.1e} on {m['booster_onnx']['rows_checked']} rows")
    print(f"{len(metas)} artifacts in {out}")
    return 0


def _platforms(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.predict import platforms

    table = Table(title="platforms with labels (perfgraphs predict --platform NAME [--mode train])")
    for col in ("platform", "mode", "hardware", "targets (labeled rows)"):
        table.add_column(col)
    for p in platforms(**({"artifacts": args.artifacts} if args.artifacts else {})):
        table.add_row(p.name, p.mode, p.hardware,
                      ", ".join(f"{t} ({'no artifact' if n is None else n}"
                                + (", encoder LLMs)" if kind == TABULAR_ROWS else ")") for t, _, n, kind in p.targets))
    Console(width=200).print(table)
    return 0
