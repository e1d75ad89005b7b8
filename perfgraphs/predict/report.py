"""A self-contained HTML report of a :class:`Prediction`: no script, no CDN, every chart inline SVG."""

from __future__ import annotations

import html
import math
from pathlib import Path

from perfgraphs.predict.result import Comparison, Prediction, TargetPrediction

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}
table[id^=predictions] td:nth-child(4),table[id^=predictions] td:nth-child(5){min-width:14em}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#comparison td.num{white-space:normal}#comparison td span{white-space:nowrap}#comparison th.column{text-align:right}
.wide{overflow-x:auto}
.ood{color:#b00}.ok{color:#070}.caveat{color:#a60}.note{color:#555;font-size:.9em}
svg text{font-size:11px;font-family:system-ui,sans-serif}h2{margin-top:1.6em}.error{color:#b00;font-weight:bold}
"""


def _e(v) -> str:
    return html.escape(str(v))


def fmt(value: float) -> str:
    if value == 0 or not math.isfinite(value):
        return str(value)
    digits = max(0, 3 - int(math.floor(math.log10(abs(value)))) - 1)
    return f"{value:,.{min(digits, 6)}f}"


def _log_axis(lo: float, hi: float, x0: float, x1: float):
    lo, hi = math.log10(lo), math.log10(hi)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    return lambda v: x0 + (math.log10(v) - lo) / (hi - lo) * (x1 - x0)


def target_chart(t: TargetPrediction) -> str:
    """The prediction with its 80 % interval beside the nearest measured labels (a refused
    prediction: the measured labels only)."""
    values = [v for v in (t.low, t.high, t.value) if v is not None] + [n.label for n in t.neighbours if n.label > 0]
    if not values:
        return ""
    lo, hi = min(values) / 1.3, max(values) * 1.3
    w, h = 460, 46
    x = _log_axis(lo, hi, 10, w - 10)
    parts = [f"<svg role='img' aria-label='{_e(t.target)} chart' width='{w}' height='{h}' viewBox='0 0 {w} {h}'>",
             f"<line x1='10' x2='{w - 10}' y1='30' y2='30' stroke='#bbb'/>"]
    if t.low is not None:
        parts += [f"<line x1='{x(t.low):.1f}' x2='{x(t.high):.1f}' y1='20' y2='20' stroke='#1f5fbf' stroke-width='2'/>",
                  f"<line x1='{x(t.low):.1f}' x2='{x(t.low):.1f}' y1='15' y2='25' stroke='#1f5fbf'/>",
                  f"<line x1='{x(t.high):.1f}' x2='{x(t.high):.1f}' y1='15' y2='25' stroke='#1f5fbf'/>"]
    if t.value is not None:
        parts.append(f"<circle cx='{x(t.value):.1f}' cy='20' r='4' fill='#1f5fbf'><title>predicted {fmt(t.value)} "
                     f"{_e(t.unit)}</title></circle>")
    for n in t.neighbours:
        if n.label > 0:
            parts.append(f"<circle cx='{x(n.label):.1f}' cy='30' r='3.5' fill='none' stroke='#c60'><title>"
                         f"{_e(n.name)}: measured {fmt(n.label)} {_e(t.unit)}</title></circle>")
    parts.append(f"<text x='10' y='44'>{fmt(lo)}</text><text x='{w - 10}' y='44' text-anchor='end'>{fmt(hi)} "
                 f"{_e(t.unit)} (log)</text></svg>")
    return "".join(parts)


def roofline_chart(p: Prediction) -> str:
    """Attainable GFLOP/s = min(peak, bandwidth × intensity) of the probed machine, and the model's
    point at its arithmetic intensity and the FLOP/s its predicted time implies."""
    if p.probe is None:
        return "<p class='note'>No hardware probe for this platform's measurements: no roofline.</p>"
    peak, bw = p.probe.peak_gflops_measured, p.probe.memory_bandwidth_gbps_measured
    ai = p.graph.arithmetic_intensity_flops_per_byte
    # the predicted time the cost is priced at (the recommended answer), none when it was refused
    timed = next((t for t in p.targets if p.cost is not None and t.target == p.cost.time_target), None)
    time_ms = None if timed is None or timed.value is None else \
        timed.value * (p.graph.batch_size if timed.batch_size != p.graph.batch_size else 1)
    flops = p.graph.total_flops * (3 if p.mode == "train" else 1)  # forward + backward ≈ 3 forwards
    achieved = flops / (time_ms / 1000.0) / 1e9 if time_ms else None
    ridge = peak / bw
    ai_lo, ai_hi = min(ai, ridge) / 20, max(ai, ridge) * 20
    y_lo = min(bw * ai_lo, achieved or peak) / 3
    w, h, m = 520, 300, 45
    x = _log_axis(ai_lo, ai_hi, m, w - 15)
    ylog = _log_axis(y_lo, peak * 3, h - 30, 15)
    pts = [(a, min(peak, bw * a)) for a in (ai_lo, ridge, ai_hi)]
    path = " ".join(f"{'M' if i == 0 else 'L'}{x(a):.1f},{ylog(v):.1f}" for i, (a, v) in enumerate(pts))
    out = [f"<svg role='img' aria-label='roofline' width='{w}' height='{h}' viewBox='0 0 {w} {h}'>",
           f"<rect x='{m}' y='15' width='{w - m - 15}' height='{h - 45}' fill='none' stroke='#ccc'/>",
           f"<path d='{path}' fill='none' stroke='#333' stroke-width='2'/>",
           f"<text x='{x(ridge):.1f}' y='{ylog(peak) - 5:.1f}'>peak {fmt(peak)} GFLOP/s</text>",
           f"<text x='{m + 5}' y='{h - 35}'>memory {fmt(bw)} GB/s</text>",
           f"<line x1='{x(ai):.1f}' x2='{x(ai):.1f}' y1='15' y2='{h - 30}' stroke='#1f5fbf' stroke-dasharray='4 3'/>",
           f"<text x='{x(ai) + 4:.1f}' y='28' fill='#1f5fbf'>model: {fmt(ai)} FLOP/byte</text>"]
    if achieved:
        out.append(f"<circle cx='{x(ai):.1f}' cy='{ylog(achieved):.1f}' r='5' fill='#c60'><title>predicted "
                   f"{fmt(achieved)} GFLOP/s</title></circle><text x='{x(ai) + 7:.1f}' y='{ylog(achieved) + 4:.1f}' "
                   f"fill='#c60'>predicted {fmt(achieved)} GFLOP/s</text>")
    out.append(f"<text x='{w / 2:.0f}' y='{h - 8}' text-anchor='middle'>arithmetic intensity (FLOP/byte, log)"
               f"</text><text x='12' y='{h / 2:.0f}' transform='rotate(-90 12 {h / 2:.0f})' text-anchor='middle'>"
               f"GFLOP/s (log)</text></svg>")
    return "".join(out)


def macs_chart(p: Prediction, top: int = 10) -> str:
    total = sum(m for _, m in p.graph.macs_by_operator)
    if not total:
        return "<p class='note'>The graph has no multiply-accumulates.</p>"
    return share_bars([(op, m / total) for op, m in p.graph.macs_by_operator], "share of MACs per operator type", top)


def share_bars(shares: list[tuple[str, float]], label: str, top: int = 10) -> str:
    rows = [(name, s * 1.0) for name, s in shares[:top]]
    rest = sum(s for _, s in shares[top:])
    if rest:
        rows.append(("(others)", rest))
    total = 1.0
    w, bar_h = 520, 18
    h = bar_h * len(rows) + 10
    out = [f"<svg role='img' aria-label='{_e(label)}' width='{w}' height='{h}' viewBox='0 0 {w} {h}'>"]
    for i, (op, m) in enumerate(rows):
        share = m / total
        y = 5 + i * bar_h
        out.append(f"<text x='150' y='{y + 12}' text-anchor='end'>{_e(op)}</text>"
                   f"<rect x='155' y='{y + 2}' width='{share * 300:.1f}' height='{bar_h - 5}' fill='#1f5fbf'/>"
                   f"<text x='{160 + share * 300:.1f}' y='{y + 12}'>{share * 100:.1f} %</text>")
    out.append("</svg>")
    return "".join(out)


def interval_text(t: TargetPrediction) -> str:
    """'low – high (80 %); low – high (90 %)', or why there is none."""
    if t.value is None:
        return "refused: no number"
    if not t.intervals:
        return "no interval stated for this size"
    return "; ".join(f"{fmt(i.low)} – {fmt(i.high)} ({i.level:.0%})" for i in t.intervals)


def predictions_table(p: Prediction, id_suffix: str = "") -> str:
    rows = [f"<table id='predictions{id_suffix}'><tr><th>target</th><th>predicted</th>"
            "<th>interval (unseen architectures)</th><th>measured error</th><th>verdict</th><th>chart</th></tr>"]
    for t in p.targets:
        at = f" (at batch {t.batch_size})" if t.batch_size != p.graph.batch_size else ""
        cls = {"answered": "ok", "refused": "ood"}.get(t.distribution.verdict, "caveat")
        role = "" if not t.why else (f"<br><b>{'recommended' if t.recommended else 'secondary'}</b>: "
                                     f"<span class='note'>{_e(t.why)}</span>")
        value = "—" if t.value is None else f"{fmt(t.value)} {_e(t.unit)}"
        rows.append(
            f"<tr class='prediction' data-target='{_e(t.target)}' data-verdict='{_e(t.distribution.verdict)}' "
            f"data-recommended='{'yes' if t.recommended else 'no'}'><td>{_e(t.target)}{_e(at)}<br><span class='note'>"
            f"{_e(t.description)}</span>{role}</td><td class='num value'>{value}</td>"
            f"<td class='num interval'>{_e(interval_text(t))}</td><td>MAPE {t.error.mape_pct:.1f} %, Acc(10 %) "
            f"{t.error.acc_10_pct:.0f} %<br><span class='note'>{_e(t.predictor)}; {_e(t.error.source)}</span></td>"
            f"<td class='{cls}'>{_e(t.distribution.verdict)}<br><span class='note'>"
            f"{_e(t.distribution.reason)}</span></td><td>{target_chart(t)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def neighbours_table(p: Prediction) -> str:
    rows = ["<table><tr><th>target</th><th>nearest measured rows</th><th>distance</th><th>measured</th></tr>"]
    for t in p.targets:
        for n in t.neighbours:
            rows.append(f"<tr><td>{_e(t.target)}</td><td>{_e(n.name)}</td><td class='num'>{n.distance:.2f}</td>"
                        f"<td class='num'>{fmt(n.label)} {_e(t.unit)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def mig_and_cost(p: Prediction, id_suffix: str = "") -> str:
    out = ["<h2>MIG profile</h2>"]
    if p.mig is None:
        out.append(f"<p class='note'>{_e(p.mig_note)}</p>")
    else:
        out.append(f"<p>For a predicted peak memory of {fmt(p.mig.peak_memory_mb)} MB plus a {p.mig.margin_pct:.1f} % "
                   f"margin:</p><table id='mig{id_suffix}'><tr><th>GPU</th><th>smallest profile</th>"
                   f"<th>instances per GPU</th></tr>")
        for c in p.mig.choices:
            out.append(f"<tr><td>{_e(c.gpu)}</td><td>{_e(c.profile or 'none fits')}</td>"
                       f"<td class='num'>{c.instances_per_gpu or ''}</td></tr>")
        out.append(f"</table><p class='note'>Caveat: {_e(p.mig.caveat)}. Profiles: {_e(p.mig.source)}.</p>")
    out.append("<h2>Cost</h2>")
    if p.cost is None:
        out.append(f"<p class='note'>{_e(p.cost_note)}</p>")
    else:
        c = p.cost
        span = f" (80 % interval ${fmt(c.usd_low)} – ${fmt(c.usd_high)})" if c.usd_low is not None else ""
        out.append(f"<p id='cost{id_suffix}'>{c.units:,} {_e(c.unit)}s ≈ {fmt(c.seconds / 3600)} hours of "
                   f"{_e(c.price.offer)} at "
                   f"${c.price.usd_per_hour:g}/hour = <b>${fmt(c.usd)}</b>{span}, at the predicted "
                   f"{_e(c.time_target)}.</p><p class='note'>Price from "
                   f"<a href='{_e(c.price.source_url)}'>{_e(c.price.source_url)}</a> ({_e(c.price.source_date)}; table "
                   f"{_e(Path(c.price.table).name)} as of {_e(c.price.table_as_of)}). An estimate from a predicted time and a "
                   f"listed price, not a bill.</p>")
    return "".join(out)


def body(p: Prediction, id_suffix: str = "") -> str:
    """The report of one prediction; ``id_suffix`` keeps element ids unique where several share a page."""
    g = p.graph
    inputs = ", ".join(f"{n}{list(s)}" for n, s in g.inputs)
    probe = (f"{_e(p.probe.device)}: {fmt(p.probe.peak_gflops_measured)} GFLOP/s, "
             f"{fmt(p.probe.memory_bandwidth_gbps_measured)} GB/s (probed {_e(p.probe.probed_at_utc)})"
             if p.probe else "no probe")
    return (f"<h1>{_e(p.source)} on {_e(p.platform)} ({_e(p.mode)})</h1>"
            f"<p>{_e(p.hardware)} · batch {g.batch_size} · inputs {_e(inputs)} · {g.num_nodes:,} nodes · "
            f"{fmt(g.total_macs / 1e9)} GMACs · {fmt(g.total_params / 1e6)} M parameters</p>"
            + (f"<p class='calibration'><b>Calibrated:</b> {_e(p.calibration)}</p>" if p.calibration else "") +
            f"<h2>Predictions</h2>{predictions_table(p, id_suffix)}"
            f"<p class='note'>Blue: the prediction and its 80 % interval (split-conformal, from the predictor's "
            f"errors on architectures it never saw: measured after training where there are such, else families "
            f"held out of its training); orange rings: the nearest measured rows' real labels. "
            f"A refused target shows no number: the model lies where the predictor cannot answer, and the "
            f"verdict says why.</p>"
            f"{mig_and_cost(p, id_suffix)}"
            f"<h2>Roofline</h2><p class='note'>Measured peaks of the labels' machine: {probe}.</p>{roofline_chart(p)}"
            f"<h2>Share of MACs per operator type</h2>{macs_chart(p)}"
            f"<h2>Share of predicted time per operator type</h2>"
            + (f"<p class='note'>{_e(p.time_by_operator_note)}</p>"
               f"{share_bars(list(p.time_by_operator), 'share of predicted time per operator type')}"
               if p.time_by_operator else "<p class='note'>No time model with a per-operator breakdown on this "
                                          "platform.</p>") +
            f"<h2>Nearest measured models</h2>{neighbours_table(p)}")


# -- a sweep / comparison: one column per (source, batch); the CLI table shows the same cells ------
def comparison_parts(t: TargetPrediction | None, batch: int) -> list[str]:
    """'value unit', '[low–high]' of the 80 % interval, '@bN' where the target is asked at its
    labels' own batch, not the column's; or 'refused' (no number) or '—' (not predicted for this model)."""
    if t is None:
        return ["—"]
    if t.value is None:
        return ["refused"]
    i = t.interval(0.8)
    return ([f"{fmt(t.value)} {t.unit}"] + ([f"[{fmt(i.low)}–{fmt(i.high)}]"] if i is not None else [])
            + ([f"@b{t.batch_size}"] if t.batch_size != batch else []))


def comparison_cell(t: TargetPrediction | None, batch: int) -> str:
    return " ".join(comparison_parts(t, batch))


def cost_parts(p: Prediction) -> list[str]:
    if p.cost is None:
        return ["not priced"]
    c = p.cost
    return [f"${fmt(c.usd)}"] + ([f"[${fmt(c.usd_low)}–${fmt(c.usd_high)}]"] if c.usd_low is not None else [])


def cost_cell(p: Prediction) -> str:
    return " ".join(cost_parts(p))


def cost_label(c: Comparison) -> str:
    priced = next((p.cost for p in c.predictions if p.cost is not None), None)
    return "cost" if priced is None else f"cost of {priced.units:,} {priced.unit}s"


def comparison_rows(c: Comparison) -> list[tuple[str, str, list[TargetPrediction | None]]]:
    """(target, role, its prediction in each column): the targets of every column in their first
    order, those recommended in every column first; role "" (recommended everywhere),
    "secondary" or "secondary in some columns" (the recommendation can differ by model and batch)."""
    order: list[str] = []
    for p in c.predictions:
        order += [t.target for t in p.targets if t.target not in order]
    rows = []
    for target in order:
        cells = [next((t for t in p.targets if t.target == target), None) for p in c.predictions]
        flags = [t.recommended for t in cells if t is not None]
        role = "" if all(flags) else "secondary" if not any(flags) else "secondary in some columns"
        rows.append((target, role, cells))
    rank = {"": 0, "secondary in some columns": 1, "secondary": 2}
    return sorted(rows, key=lambda row: rank[row[1]])  # stable: the targets' own order within a rank


def _spans(parts: list[str]) -> str:
    """A cell's parts, each unbroken, the cell breaking between them (a narrow column wraps the
    interval below the value, never inside a number)."""
    return " ".join(f"<span>{_e(part)}</span>" for part in parts)


def comparison_table(c: Comparison) -> str:
    heads = "".join(f"<th class='column num' data-source='{_e(src)}' data-batch='{b}'>{_e(src)}<br>batch {b}</th>"
                    for src, b in c.columns)
    rows = [f"<div class='wide'><table id='comparison'><tr><th>target</th>{heads}</tr>"]
    for target, role, cells in comparison_rows(c):
        tds = []
        for (_, b), t in zip(c.columns, cells):
            verdict = "" if t is None else t.distribution.verdict
            value = "" if t is None or t.value is None else repr(t.value)
            cls = {"answered": "ok", "refused": "ood", "": "note"}.get(verdict, "caveat")
            tds.append(f"<td class='num cell {cls}' data-verdict='{_e(verdict)}' data-value='{value}'>"
                       f"{_spans(comparison_parts(t, b))}</td>")
        label = _e(target) + (f"<br><span class='note'>{_e(role)}</span>" if role else "")
        rows.append(f"<tr class='comparison-row' data-target='{_e(target)}' data-role='{_e(role or 'recommended')}'>"
                    f"<td>{label}</td>{''.join(tds)}</tr>")
    costs = "".join(f"<td class='num cost' data-usd='{'' if p.cost is None else repr(p.cost.usd)}'>"
                    f"{_spans(cost_parts(p))}</td>" for p in c.predictions)
    rows.append(f"<tr id='comparison-cost'><td>{_e(cost_label(c))}</td>{costs}</tr></table></div>")
    return "".join(rows)


def comparison_body(c: Comparison) -> str:
    """The comparison table, then each prediction's full report in the table's column order."""
    first = c.predictions[0]
    sections = "".join(f"<section class='prediction-body' id='column-{i + 1}'>{body(p, f'-{i + 1}')}</section>"
                       for i, p in enumerate(c.predictions))
    return (f"<h1>Comparison on {_e(first.platform)} ({_e(first.mode)})</h1><p>{_e(first.hardware)}</p>"
            f"{comparison_table(c)}"
            f"<p class='note'>Each cell: the prediction and its 80 % interval [low–high] (split-conformal, from "
            f"architectures the predictor never saw); '@bN': asked at batch N, the batch its labels were "
            f"measured at; 'refused': the model lies where the predictor cannot answer (no number; the column's "
            f"report below says why); '—': not predicted for that model. Secondary targets answer the same "
            f"question as a recommended one with a wider interval. Cost at the recommended time, with the range "
            f"of its 80 % interval.</p>{sections}")


def render_comparison_html(c: Comparison) -> str:
    names = " vs ".join(dict.fromkeys(src for src, _ in c.columns))
    return page(f"perfgraphs predict: {names}", comparison_body(c))


def render_html(p: Prediction) -> str:
    return page(f"perfgraphs predict: {p.source}", body(p))


def page(title: str, content: str) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{STYLE}</style></head><body>{content}</body></html>")
