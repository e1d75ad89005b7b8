"""``perfgraphs predict <source>``: latency, memory, energy, MIG profile and cost of a model on a
measured platform; ``perfgraphs predict train`` trains the predictors it uses;
``perfgraphs predict platforms`` lists what can be asked; ``perfgraphs predict convert`` adds the ONNX
form of the booster to artifacts trained before it was part of them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# words that are commands, not sources (a file of that name: give it as ./train)
_COMMANDS = ("train", "platforms", "convert")


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
    p.add_argument("--batch", type=int, default=1, help="batch size (default 1)")
    p.add_argument("--input", default=None, help="per-sample image shape C,H,W (e.g. 3,224,224)")
    p.add_argument("--seq-len", type=int, default=None, help="sequence length (hf: models, text ONNX files)")
    p.add_argument("--platform", default=None, help="platform with labels (default cpu-torch-fp32; "
                                                     "`perfgraphs predict platforms` lists them)")
    p.add_argument("--mode", default="infer", choices=("infer", "train"), help="a forward pass or a training step")
    p.add_argument("--html", type=Path, default=None, help="write a self-contained HTML report here")
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    p.add_argument("--prices", type=Path, default=None, help="price table overriding the committed one")
    p.add_argument("--inferences", type=int, default=1_000_000, help="inferences to price (default 1,000,000)")
    p.add_argument("--steps", type=int, default=10_000, help="training steps to price (default 10,000)")
    p.add_argument("--artifacts", type=Path, default=None, help="predictor artifacts folder (default: the package's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from perfgraphs.errors import InvalidInputSpecError

    if args.source == "train":
        return _train(args)
    if args.source == "platforms":
        return _platforms(args)
    if args.source == "convert":
        return _convert(args)
    for name in ("inferences", "steps"):
        if getattr(args, name) < 1:
            raise InvalidInputSpecError(f"--{name} must be at least 1")
    from perfgraphs.predict import predict

    kwargs = {"artifacts": args.artifacts} if args.artifacts else {}
    result = predict(args.source, batch=args.batch, input=args.input, seq_len=args.seq_len,
                     platform=args.platform or "cpu-torch-fp32", mode=args.mode, prices=args.prices,
                     inferences=args.inferences, train_steps=args.steps, **kwargs)
    if args.html is not None:
        from perfgraphs.predict.report import render_html

        try:
            args.html.write_text(render_html(result))
        except OSError as exc:
            from perfgraphs.errors import FileIOError

            raise FileIOError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=1, default=str) + "\n")
    else:
        _print(result)
        if args.html is not None:
            print(f"report: {args.html}")
    return 0


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
                                + (", encoder LLMs)" if kind == "tabular" else ")") for t, _, n, kind in p.targets))
    Console(width=200).print(table)
    return 0
