"""Static leaderboard site: ``leaderboard/site/index.html`` plus one page per entry and the rules.

Plain HTML with a few lines of inline JavaScript for column sorting: it works from ``file://``
with no server and no network, and the pages are generated only from the results JSONL files.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

from perfgraphs import paths
from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records.boards import (applicable_baselines, entry_groups, group_order,
                                          missing_reference_entries, official, reference_method)
from perfgraphs.leaderboard.records.builds import board_pin, pins_file, ranked_pin, read_pins, split_by_build
from perfgraphs.leaderboard.records.hidden import compromised_hashes, hidden_noise_text, hidden_round_text
from perfgraphs.leaderboard.records.ranks import (RANK_RULE, board_test_n, diff_text, label_repetitions, mape_text, rank_board,
                                                  unranked_board, unregistered_board)
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS
from perfgraphs.leaderboard.records.sealed_ranks import read_sealed
from perfgraphs.leaderboard.records.results import RESULTS_DIR, Entry, RecordedBoards, min_seeds_of
from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS
from perfgraphs.evaluation.scoring import PER_CONFIG_KEY
from perfgraphs.registry import Config, Task

TIERS_NOTE = ("Tiers: <em>verified</em> — predictor code run by the isolated harness on a hidden test set whose "
              "labels never left the organisers; <em>reproduced</em> — the same harness on a public test set, whose "
              "labels are in the repository, so the score is reproduced from the code but cannot be certified "
              "label-free; <em>self-reported</em> — predictions files, checked but not run here.")

SITE_DIR = paths.leaderboard_dir() / "site"
RULES = paths.leaderboard_dir() / "RULES.md"

_STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:75rem}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}
th{background:#f3f3f3;cursor:pointer}td.l,th.l{text-align:left}caption{text-align:left;font-weight:bold}
.who{font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace}"""
# .who: methods and authors in a monospace font, where ASCII look-alikes (I and l, rn and m, 0 and O)
# differ; they are what tells two entries apart

_SORT_JS = """<script>
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
    var rows=Array.from(t.tBodies[0].rows), asc=th.dataset.dir!=='asc';
    t.querySelectorAll('th').forEach(function(h){delete h.dataset.dir});th.dataset.dir=asc?'asc':'desc';
    rows.sort(function(a,b){var x=a.cells[i].dataset.v,y=b.cells[i].dataset.v;
      var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:String(x).localeCompare(String(y));
      return asc?c:-c;});
    rows.forEach(function(r){t.tBodies[0].appendChild(r)});});});});
</script>"""


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{body}{_SORT_JS}</body></html>\n")


def _num(value, fmt: str) -> str:
    """A score as text; an undefined one (None, NaN: Kendall's τ of constant predictions) is "–"."""
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return format(value, fmt)


def _cell(value, text: str | None = None, left: bool = False) -> str:
    shown = html.escape(text if text is not None else str(value))
    return f"<td{' class=l' if left else ''} data-v='{html.escape(str(value))}'>{shown}</td>"


CV_NOTES = {
    "leave-models-out": "leave-models-out 5-fold cross-validation: every row predicted once, by the model fitted on "
                        "the other folds, which never saw its model",
    "stratified-5-fold": "stratified 5-fold cross-validation (every model in every training fold): every row predicted "
                         "once, by the model fitted on the other folds",
}


def cv_note(config: Config | None, protocol: str) -> str:
    """How a board's entries were scored, where not on a test part: a cross-validated config's
    pooled out-of-fold predictions under ``protocol``; "" otherwise (and for a config the registry
    no longer has)."""
    if config is None or config.evaluation != "cv-folds":
        return ""
    return CV_NOTES.get(protocol, protocol)


def entry_slug(e: Entry) -> str:
    """The entry's page name: readable, and unique to the record (a digest of its exact method,
    authors, run, commit and date): the readable part folds every other character to ``-``, so two
    records (``static+xgboost`` beside ``static-xgboost``, with a copied run identity) once shared a
    page and one overwrote the reference's (review of 2026-12-02). The digest has 64 bits: with 32, a
    hand-written record searched for one (a commit varied) in minutes and took another team's page
    (tenth pass). The digest is of the whole record: of ten of its fields, it left out the protocol,
    and the five nnlqp transfer records of one run (K8 to K128, one run identity, commit and date)
    shared one page, each of five boards' rows linking to the K128 record's scores; so did a record
    on an earlier build, written after the current one's page (twenty-seventh pass of 2026-12-03)."""
    import hashlib
    from dataclasses import fields

    known = _SLUGS.get(id(e))
    if known is not None and known[0] is e:
        return known[1]
    # at most 160 readable characters: a file name has 255 bytes (a long run_identity broke `build`)
    readable = re.sub(r"[^a-z0-9]+", "-", f"{e.dataset}-{e.config}-{e.target}-{e.method}-{e.run_identity}".lower())[:160]
    # every field as it is (not dataclasses.asdict, which deep-copies the ratios first: 13 ms a record)
    exact = json.dumps({f.name: getattr(e, f.name) for f in fields(e)}, sort_keys=True, default=str)
    slug = f"{readable}-{hashlib.sha256(exact.encode()).hexdigest()[:16]}"
    if len(_SLUGS) >= 4096:
        _SLUGS.clear()
    _SLUGS[id(e)] = (e, slug)  # the entry kept with it, so its id is not reused while remembered
    return slug


# entry → its slug, by identity: a build names each entry's page 5-6 times, and digesting a whole
# record with its per-configuration ratios takes ~3 ms (233 records, ~4 s a build uncached)
_SLUGS: dict[int, tuple[Entry, str]] = {}


def _svg_scatter(pairs: list, target: str) -> str:
    """Actual vs predicted on log-log axes as inline SVG (no script, no network)."""
    import math

    pts = [(float(t), float(p)) for t, p in pairs if t > 0 and p > 0]
    if not pts:
        return ""
    lo = math.log10(min(min(t, p) for t, p in pts))
    hi = math.log10(max(max(t, p) for t, p in pts))
    span = (hi - lo) or 1.0
    size, pad = 360, 40

    def xy(v: float) -> float:
        return pad + (math.log10(v) - lo) / span * (size - 2 * pad)

    dots = "".join(f"<circle cx='{xy(t):.1f}' cy='{size - xy(p):.1f}' r='2.5' fill='#1f77b4' fill-opacity='.6'/>"
                   for t, p in pts)
    return (f"<figure><svg xmlns='http://www.w3.org/2000/svg' width='{size}' height='{size}' role='img' "
            f"aria-label='actual vs predicted'><rect width='{size}' height='{size}' fill='white' stroke='#ccc'/>"
            f"<line x1='{pad}' y1='{size - pad}' x2='{size - pad}' y2='{pad}' stroke='#888' stroke-dasharray='4'/>"
            f"{dots}<text x='{size / 2}' y='{size - 8}' text-anchor='middle' font-size='12'>measured {html.escape(target)} "
            f"(log, {10 ** lo:.3g} to {10 ** hi:.3g})</text><text x='12' y='{size / 2}' font-size='12' "
            f"transform='rotate(-90 12 {size / 2})' text-anchor='middle'>predicted (log)</text></svg>"
            f"<figcaption>actual vs predicted, seed {{seed}}; dashed: perfect prediction</figcaption></figure>")


def current_and_superseded(entries: list[Entry]) -> tuple[list[Entry], dict[str, list[Entry]]]:
    """Split one board's records into what is ranked and what a newer record replaced.

    A method re-submitted (a fixed bug, a new commit) gets a new record; the results file keeps
    both, but ranking the two side by side would count one method twice. The latest record of each
    (method, authors, tier, division) is ranked; the older ones stay reachable from its page, newest
    first. Another author's record under the same method name supersedes nothing (it took over the
    entry before: review of 2026-12-02); both are listed. A record written twice (the same line
    copied) is one record: its copy, "superseded" by it, wrote the ranked entry's page as "Superseded
    ... Not ranked", linking to itself (twenty-seventh pass of 2026-12-03).
    """
    latest: dict[tuple, list[Entry]] = {}
    # records are appended in submission order, so file order breaks ties of equal timestamps
    for _, e in sorted(enumerate(entries), key=lambda oe: (oe[1].date_utc, oe[0])):
        # the method as check compares it (``gnn-x`` and ``GNN_X`` by one team are one method; ``gnn-1``
        # and ``gnn-l`` two, both accepted by check, so neither hides the other: ninth pass of 2026-12-02);
        # the authors exactly as shown: another spelling of them is another entry, listed beside it
        history = latest.setdefault((names.method_key(e.method), e.authors, e.tier, e.division), [])
        if e not in history:  # a line twice (a merge's copy) is one record: its page, once, never "superseded"
            history.insert(0, e)
    current = [history[0] for history in latest.values()]
    return current, {entry_slug(history[0]): history[1:] for history in latest.values()}


def _history(e: Entry, earlier: list[Entry], superseded_by: Entry | None) -> str:
    if superseded_by is not None:
        return (f"<p class=note><strong>Superseded</strong> by a newer record of this method on this board: "
                f"<a href='{entry_slug(superseded_by)}.html'>{html.escape(superseded_by.date_utc)}</a>. "
                f"Not ranked.</p>")
    if not earlier:
        return ""
    items = "".join(f"<li><a href='{entry_slug(o)}.html'>{html.escape(o.date_utc)}</a> · commit "
                    f"{html.escape(o.code_commit[:12])} · MAPE {o.mean_std('mape_pct')[0]:.2f} %</li>" for o in earlier)
    return f"<h2>Earlier records of this method (superseded, not ranked)</h2><ul>{items}</ul>"


def board_families(board: Task | None, protocol: str, entries: list[Entry]) -> tuple[list[str], object] | None:
    """(the family of each of a board's test configurations, their labels), in its test part's order,
    which a record's ratios follow; None where no public record of ``entries`` has ratios and a
    per-family breakdown to tie (the part is not loaded then), or the part cannot be read here."""
    import numpy as np

    if board is None or not any(e.test_set == "public" and e.per_seed[0].get("per_family")
                                and e.per_seed[0].get(PER_CONFIG_KEY) for e in entries):
        return None
    from perfgraphs.evaluation.protocol import protocol_parts

    try:
        test = protocol_parts(board, protocol=protocol or None)[1].test
        return [str(f) for f in test["family"][:]], np.asarray(test[board.target.name][:], dtype=float)
    except (PerfgraphsError, KeyError, ValueError):
        return None


def family_breakdown(e: Entry, families: tuple[list[str], object] | None) -> dict | None:
    """The first seed's n, MAPE and Acc(10 %) per family, computed from its per-configuration ratios and
    the board's families (:func:`board_families`), where its pairs' labels are the board's in its order;
    None where they cannot be tied. The page showed the record's own ``per_family``, which no check ties
    to anything: Eve's copy of `serving-prior-boost`'s record on the ML.ENERGY energy-per-token board,
    stating 1.00 % MAPE and 100 % Acc(10 %) on every family where its ratios give 18.51 % on Qwen and
    33.84 % on openai, passed every read check and its page showed 1.00 % six times (hundred-and-
    fourteenth pass, side a)."""
    import numpy as np

    from perfgraphs.leaderboard.records.ranks import _labels_of, labels_place_it

    ratios = e.per_seed[0].get(PER_CONFIG_KEY)
    if families is None or not ratios or len(ratios) != len(families[0]) \
            or not labels_place_it(_labels_of(e), families[1]):
        return None
    errors, names = np.abs(np.asarray(ratios, dtype=float) - 1.0), np.asarray(families[0])
    return {f: {"n": int(np.sum(names == f)), "mape_pct": float(np.mean(errors[names == f]) * 100.0),
                "acc_10_pct": float(np.mean(errors[names == f] <= 0.10) * 100.0)} for f in sorted(set(families[0]))}


def _entry_page(e: Entry, history: str, cv: str, families: tuple[list[str], object] | None = None) -> str:
    """The page of one record; ``cv``: its board's :func:`cv_note`; ``families``: its board's
    (:func:`board_families`), from which its per-family table is computed (:func:`family_breakdown`)."""
    metrics = ("mape_pct", "rmse", "acc_10_pct", "kendall_tau")
    seeds = "".join("<tr>" + _cell(s["seed"]) + "".join(_cell(s.get(m), _num(s.get(m), ".4g")) for m in metrics)
                    + "</tr>" for s in e.per_seed)
    # a graph board's breakdown is per family; a transfer board's, per held-out platform (first draw);
    # a hidden set's record has none (aggregates only), and a stale one's is not shown either
    hidden = e.test_set == "hidden"
    fam = {} if hidden else (e.per_seed[0].get("per_family") or e.per_seed[0].get("per_platform") or {})
    unit = "family" if e.per_seed[0].get("per_family") else "held-out platform"
    tied = None if hidden or unit != "family" else family_breakdown(e, families)
    fam = tied if tied is not None else fam
    # a transfer record's rows are tied only by their means being its draw's scores (transfer_headline_problem)
    source = (", from its ratios on the board's configurations" if tied is not None else
              ", as the record states it: not tied to its ratios" if unit == "family" else
              ", as the record states them: the draw's scores are their means, no row is checked alone")
    fams = "".join("<tr>" + _cell(f, left=True) + _cell(v.get("n", "")) + _cell(v.get("mape_pct"), _num(v.get("mape_pct"), ".2f"))
                   + _cell(v.get("acc_10_pct"), _num(v.get("acc_10_pct"), ".1f")) + "</tr>"
                   for f, v in sorted(fam.items() if isinstance(fam, dict) else []) if isinstance(v, dict))
    head = "".join(f"<th>{m}</th>" for m in ("seed",) + metrics)
    about = [("authors", e.authors), ("code", f"{e.code_url} @ {e.code_commit}" if e.code_url else e.code_commit),
             ("paper", e.paper or "–"), ("external data", "yes" if e.external_data else "no"),
             ("hyper-parameters", ", ".join(f"{k}={v}" for k, v in sorted(e.hyperparameters.items())) or "–"),
             ("test set", e.test_set + (f" (labels sha256 {e.hidden_labels_sha256[:16]}…)" if e.hidden_labels_sha256 else "")),
             ("dataset content hash", e.dataset_content_hash[:16] or "–"),
             ("peak memory", e.peak_memory_text()),
             ("parameters", f"{e.num_params:,} (self-reported)" if e.num_params is not None else "–"),
             ("isolation", e.isolation or ("not recorded (before isolation)" if e.tier in HARNESS_TIERS else "–")),
             ("predictions sha256", ", ".join(str(s.get("predictions_sha256", ""))[:12] or "–" for s in e.per_seed))]
    meta = "".join(f"<tr><th class=l>{html.escape(k)}</th><td class=l>{html.escape(str(v))}</td></tr>" for k, v in about)
    scored = f"pooled out-of-fold predictions, {cv}" if cv else "test part"
    plot = "" if hidden else _svg_scatter(e.actual_vs_predicted, e.target).replace("{seed}", str(e.per_seed[0]["seed"]))
    breakdown = ("<p class=note>Hidden test set: the record carries aggregate scores only (no per-row or per-family "
                 "scores, which would reveal its labels).</p>" if hidden else
                 f"<table class=sortable><caption>per {unit} (seed {e.per_seed[0]['seed']}{source})</caption><thead><tr>"
                 f"<th class=l>{unit}</th><th>n</th><th>MAPE %</th><th>Acc(10%) %</th></tr></thead><tbody>{fams}</tbody>"
                 "</table>")
    body = (f"<p><a href='index.html'>← leaderboard</a></p><h1 class=who>{html.escape(e.method)}</h1>"
            f"<p class=who>by {html.escape(e.authors)}</p>"
            f"<p>{html.escape(e.dataset)} {html.escape(e.dataset_version)} · {html.escape(e.config)} · "
            f"{html.escape(e.target)}{' · ' + html.escape(e.protocol) if e.protocol else ''} · tier {html.escape(e.tier)} · division {html.escape(e.division)} · commit {html.escape(e.code_commit[:12])} · "
            f"run {html.escape(e.run_identity)} · {html.escape(e.hardware)} · {html.escape(e.date_utc)}</p>"
            f"{history}<table>{meta}</table>"
            f"<table class=sortable><caption>per seed ({scored})</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{seeds}</tbody></table>{breakdown}"
            + plot)
    return _page(f"{e.method} by {e.authors}", body)


def _table(entries: list[Entry], key: str, cv: str, superseded: int = 0, repetitions=None,
           official_board: bool = False, sealed: dict | None = None, elsewhere=(), unregistered: str | None = None) -> str:
    """A board's table and the lines under it; ``elsewhere``: (method, authors) of every record on
    the leaderboard, which its names are compared with (:func:`names.lookalike_notes`);
    ``unregistered``: why a board the registry lacks ranks nothing (:func:`unregistered_board`)."""
    cols = ("rank", "method", "authors", "MAPE % [95 % CI]", "Δ to best [95 % CI]", "RMSE", "Acc(10%) %", "Kendall τ", "#params (self-reported)",
            "fit s", "CPU s in fit (cores)", "predictions/s", "hardware", "date", "tier", "division", "data")
    head = "".join(f"<th{' class=l' if c in ('method', 'authors', 'hardware', 'date', 'tier', 'division', 'data') else ''}>{c}</th>"
                   for c in cols)
    rows = []
    ranked = unranked_board(entries, unregistered) if unregistered else rank_board(
        entries, repetitions, official=official_board, sealed=sealed)
    for row in ranked.rows:
        e = row.entry
        # sorted by what the cell shows: a ranked entry's MAPE is the ranking's (against the labels'
        # means where they have repetitions), another's its record's mean over seeds
        mape = row.ranked.mape_pct if row.ranked is not None else e.mean_std("mape_pct")[0]
        tau = e.mean_std("kendall_tau")[0]
        diff = row.ranked.diff_to_best if row.ranked is not None else -1
        rows.append("<tr>" + _cell(row.ranked.rank if row.ranked and row.ranked.rank else 999, row.rank_text)
                    + f"<td class='l who' data-v='{html.escape(e.method)}'>"
                    f"<a href='{entry_slug(e)}.html'>{html.escape(e.method)}</a></td>"
                    # whose entry it is, on every row: names that resemble each other are told apart by it
                    + f"<td class='l who' data-v='{html.escape(e.authors)}'>{html.escape(e.authors)}</td>"
                    + _cell(mape, mape_text(row) + (" ⁰" if e.zero_spread else "")) + _cell(diff, diff_text(row))
                    + _cell(e.mean_std("rmse")[0], f"{e.mean_std('rmse')[0]:.4g}")
                    + _cell(e.mean_std("acc_10_pct")[0], f"{e.mean_std('acc_10_pct')[0]:.1f}")
                    + _cell(tau if tau == tau else -2, _num(tau, ".3f"))
                    + _cell(e.num_params if e.num_params is not None else -1, f"{e.num_params:,}" if e.num_params else "–")
                    + (_cell(e.fit_seconds, f"{e.fit_seconds:.1f}") if e.fit_seconds is not None else _cell(-1, "–"))
                    + (_cell(e.fit_cpu_seconds, f"{e.fit_cpu_seconds:.1f} ({e.cores})")
                       if e.fit_cpu_seconds is not None and e.cores is not None else _cell(-1, "–"))
                    + (_cell(e.predictions_per_second, f"{e.predictions_per_second:,.0f}")
                       if e.predictions_per_second is not None else _cell(-1, "–"))
                    + _cell(e.hardware, left=True) + _cell(e.date_utc[:10], left=True)
                    + _cell(e.tier, left=True) + _cell(e.division, left=True)
                    + _cell(e.dataset_content_hash, f"{e.dataset_version} {e.dataset_content_hash[:8]}", left=True)
                    + "</tr>")
    note = ""
    if entries and cv:
        note += f" · {cv}"
    if superseded:
        note += f" · {superseded} earlier record{'s' if superseded > 1 else ''} superseded (see the entry pages)"
    if any(e.test_set == "public" and e.predictions_per_second is not None for e in entries):
        # the test graphs ship with the dataset: a predictor can predict them during fit and
        # answer from a table (the red team's 15 → 619 predictions/s)
        note += (" · predictions/s includes graphs the predictor could precompute: the public test graphs are "
                 "known in advance")
    if any(e.run_costs_caveat() and e.fit_seconds is not None for e in entries):
        note += (" · fit s, CPU s and predictions/s are each record's own run on its hardware: reproduce scores a "
                 "reproduced record's predictions again, never its timings")
    zero = ("<p class=note>⁰ every seed scored the same: the method is deterministic given the data, so its "
            "interval is a point by construction, not a measured certainty.</p>"
            if any(e.zero_spread for e in entries) else "")
    groups = "".join(f"<p class=ranks>{html.escape(line)}</p>" for line in ranked.lines()
                     + names.lookalike_notes(((e.method, e.authors) for e in entries), elsewhere))
    return (f"<table class=sortable id='{html.escape(key)}'><caption>{html.escape(key + note)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{groups}{zero}")


def noise_floor_text(board: Task, test_part=None) -> str | None:
    """The labels' noise-floor sentence as plain text, derived from the measurements each time
    (:func:`perfgraphs.evaluation.label_noise.noise_floor_note`; ``test_part``: the board's test
    part where the caller holds it); None when none is measured."""
    from perfgraphs.evaluation.label_noise import noise_floor_note

    try:
        note = noise_floor_note(board, test_part)
    except PerfgraphsError:  # sources the floor is read from that cannot be read here
        return None
    return re.sub(r"\*\*(.+?)\*\*", r"\1", note) if note else None


def board_facts(pin: dict | None, target: str, current: list[Entry], noise: str | None,
                hardware: str | None = None, round_size: str | None = None) -> str:
    """What every board states above its table: its build, test size, the hardware its labels were
    measured on (a CPU config's labels belong to one machine), the labels' noise floor and, for a
    hidden round, how many of its drawn architectures it holds (``round_size``)."""
    n = pin.get("test_n", {}).get(target) if pin else None
    if n is None and current:  # never a record's own word: its board's configurations (board_test_n)
        n = board_test_n(current)
    build = pin["content_hash"][:12] if pin else (current[0].dataset_content_hash[:12] if current else "–")
    noise_text = (noise or "Noise floor: not measured for these labels yet (no repeated measurement of their configurations); "
                  "differences between entries may be within the labels' own noise.")
    measured_on = f"measured on {html.escape(hardware)} · " if hardware else ""
    return (f"<p class=facts>build {html.escape(build)} · test n = {html.escape(str(n)) if n is not None else '–'} · "
            f"{measured_on}{html.escape(noise_text)}{html.escape(' ' + round_size) if round_size else ''}</p>")


def _previous(entries: list[Entry]) -> str:
    if not entries:
        return ""
    items = "".join(f"<li><a href='{entry_slug(e)}.html'>{html.escape(e.method)}</a> · build "
                    f"{html.escape(e.dataset_content_hash[:12])} · MAPE {e.mean_std('mape_pct')[0]:.2f} % · "
                    f"{html.escape(e.date_utc[:10])}</li>" for e in sorted(entries, key=lambda e: e.date_utc))
    return (f"<details class=previous><summary>Previous builds: {len(entries)} entr{'ies' if len(entries) > 1 else 'y'} "
            f"scored on earlier dataset builds (not ranked)</summary><ul>{items}</ul></details>")


def _board_section(out: Path, group: tuple[str, str, str, str, str, str], entries: list[Entry], pin: dict | None,
                   missing: dict, recorded_boards: RecordedBoards, elsewhere=()) -> tuple[object | None, str]:
    """(the official board of a group of entries or None, its HTML section); the entries' own
    pages are written to ``out``. Each hidden set of a board is its own section."""
    dataset, config, target, protocol, test_set, hidden_set = group
    registered = recorded_boards.config(dataset, config)  # None: a config the registry no longer has
    cv = cv_note(registered, protocol)
    build, on_build, previous = split_by_build(entries, pin)
    current, earlier = current_and_superseded(on_build)
    _write_entry_pages(out, current, earlier, previous, cv,
                       board_families(recorded_boards.task(dataset, config, target) if test_set == "public" else None,
                                      protocol, entries))
    board = official(dataset, config, target, protocol)
    # a config with several protocols names the board's; the others are its secondary boards
    several = registered is not None and len(registered.split_protocols) > 1
    key = (f"{dataset} · {config} · {target}" + (f" · {protocol}" if several else "")
           + (" · secondary board" if several and board is None else "")
           + (f" · hidden test set {hidden_set[:8]}" if test_set != "public" else "")
           + (" (withdrawn)" if hidden_set and hidden_set in compromised_hashes() else ""))
    public = test_set == "public"
    recorded = recorded_boards.task(dataset, config, target)
    facts = board_facts(ranked_pin(pin, build) if public else None, target, current,
                        noise_floor_text(recorded) if recorded and public else (
                            hidden_noise_text(dataset, config, target, current[0].hidden_labels_sha256)
                            if current and not public else None),
                        registered.hardware if registered else None,
                        hidden_round_text(dataset, config, current[0].hidden_labels_sha256)
                        if current and not public else None)
    repetitions = label_repetitions(recorded, test_set, protocol) if current and recorded else None
    sealed = read_sealed(dataset, config, target, hidden_set) if not public and hidden_set else None
    table = (facts + _table(current, key, cv, sum(map(len, earlier.values())), repetitions,
                            official_board=board is not None, sealed=sealed, elsewhere=elsewhere,
                            unregistered=None if board else unregistered_board(dataset, config, target, recorded_boards))
             if current else
             facts + f"<p class=note>{html.escape(key)}: no entries on the current build yet.</p>") + _previous(previous)
    if board is None:
        return None, table
    status = _reference_status(board, test_set, current, missing)
    return board, f"<p class=note>{html.escape(board.why)} · {html.escape(status)}</p>{table}"


def _write_entry_pages(out: Path, current: list[Entry], earlier: dict, previous: list[Entry], cv: str,
                       families=None) -> None:
    for e in current:
        write_page(out / f"{entry_slug(e)}.html", _entry_page(e, _history(e, earlier[entry_slug(e)], None), cv, families))
        for old in earlier[entry_slug(e)]:
            write_page(out / f"{entry_slug(old)}.html", _entry_page(old, _history(old, [], e), cv, families))
    for old in previous:
        write_page(out / f"{entry_slug(old)}.html", _entry_page(old, "<p class=note><strong>Previous build</strong>: "
                                                                "scored on an earlier dataset build; not ranked.</p>", cv,
                                                                families))


def write_page(path: Path, text: str) -> None:
    """Write one page of the site as a new file in its folder, put in ``path``'s place: whatever was
    there (a page of an earlier build, or a link) is replaced, never written through. The site's
    folder is ignored by git, but a pull request can still commit into it, and a link committed there
    as ``index.html`` (to ``../results/dippm.jsonl``) or as an entry's page (to another entry's page)
    had ``leaderboard build`` overwrite that file with a page (thirty-fifth pass of 2026-12-03)."""
    import tempfile

    if path.is_dir() and not path.is_symlink():
        raise PerfgraphsError(f"{path}: a folder where the site writes a page (remove it and build again)")
    # not perfgraphs.atomic.atomic_write_bytes: its fsyncs (file and folder) cost more than a site of
    # hundreds of pages, which any build makes again from the results, is worth
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".page-", suffix=".tmp")  # O_EXCL: a new file
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # as a page written before was (mkstemp makes it 0600)
        os.replace(tmp, path)  # replaces a link itself, never its target
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _rules_text() -> str:
    """The rules document as the site shows it: a bad byte read as U+FFFD (a hand edit in Latin-1
    stopped `leaderboard build` with "internal error: UnicodeDecodeError"), a file that cannot be
    read one line."""
    if not RULES.exists():
        return "No rules file."
    try:
        return RULES.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise PerfgraphsError(f"{RULES}: the rules document cannot be read ({exc.strerror})") from None


def site_folder_problem(out: Path) -> str | None:
    """Why the site cannot be written into ``out``: a link (``leaderboard/site`` committed as a link
    to another folder of the repository wrote the site's pages there: thirty-fifth pass)."""
    if out.is_symlink():
        return (f"{out}: the site's folder is a link; the site is written into a folder of its own: remove the "
                "link, or name the folder itself with --out")
    return None


def made_site_folder(out: Path) -> None:
    """Make the site's folder ``out`` (:func:`site_folder_problem` first), or refuse in one line why not. A file
    in its place (``leaderboard/site`` committed as a regular file, which the ignore rule ``leaderboard/site/``,
    a folder's, does not cover) or under it, or a path the builder cannot make, raised from ``mkdir`` and
    `leaderboard build` printed ``internal error: FileExistsError`` (``NotADirectoryError``, ``PermissionError``)
    with exit 1, where every other bad input is one ``error:`` line, exit 2 (hundred-and-twenty-sixth pass, side e)."""
    if why := site_folder_problem(out):
        raise PerfgraphsError(why)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        what = "a file is in its place" if out.exists() and not out.is_dir() else (exc.strerror or type(exc).__name__)
        raise PerfgraphsError(f"{out}: the site's folder cannot be made ({what}): remove what is there, or name "
                              "another folder with --out") from None


def _reference_status(board, test_set: str, current: list[Entry], missing: dict) -> str:
    """Which reference baselines an official board still lacks."""
    if test_set == "public":
        absent = missing.get(board, [])
        return (f"reference baselines not yet at full strength: {', '.join(absent)}" if absent
                else "every applicable reference baseline is at full strength")
    # a hidden set is scored separately: its own reference field, the references' own records (a team's
    # `gnn (tuned)` shown from before the reference's name counted as `gnn` listed: seventy-seventh pass's lead)
    absent = [b for b in applicable_baselines(board)
              if not any(reference_method(b, e.method) and e.authors == REFERENCE_AUTHORS for e in current)]
    status = (f"hidden test set; reference baselines not yet scored on it: {', '.join(absent)}" if absent
              else "hidden test set; every applicable reference baseline is listed")
    if any(e.hidden_labels_sha256 in compromised_hashes() for e in current):
        status += ("; COMPROMISED: its architectures were found in public data (leaderboard/hidden/), so "
                   "these scores are reproduced, not verified; the set scores nothing more")
    return status


def build_site(out: Path | None = None, results: Path | None = None, official_site: Path | None = None) -> Path:
    """Write the site; ``official_site``: a local preview's link to the official boards' site."""
    out = out or SITE_DIR
    results = results or RESULTS_DIR
    made_site_folder(out)
    pins = read_pins(pins_file(results))
    recorded = RecordedBoards()  # each board the records name, resolved once
    groups = entry_groups(results, recorded)
    everyone = [(e.method, e.authors) for entries in groups.values() for e in entries]  # names span every board
    official_sections, other_sections = [], []
    missing = missing_reference_entries(results)
    for key in group_order(groups):
        if not groups[key]:  # an official board nobody has been scored on yet still says what it lacks
            board = official(*key[:4])
            official_sections.append(f"<p class=note>{html.escape(' · '.join(board.key))}: {html.escape(board.why)} · "
                                     f"no entries yet (reference baselines not yet at full strength: "
                                     f"{html.escape(', '.join(missing.get(board, [])))})</p>")
            continue
        board, section = _board_section(out, key, groups[key], board_pin(pins, key[0], key[1], key[4]), missing, recorded,
                                        everyone)
        (other_sections if board is None else official_sections).append(section)
    others = ("<h2>Additional boards</h2><p>Targets outside the official list, and official targets under a "
              "config's secondary protocol (perfgraphs/llm's stratified folds; see the rules): recorded "
              "and ranked the same way, but not every reference baseline has been run on them.</p>"
              + "".join(other_sections)) if other_sections else ""
    body = ("<h1>perfgraphs leaderboard</h1><p>Test-part scores of predictors on measured performance "
            "labels (tabular configs: pooled out-of-fold predictions of a 5-fold cross-validation). "
            f"Ranks: {html.escape(RANK_RULE)}. Each board ranks only entries scored on its "
            "current dataset build and states its test size and the noise floor of its labels: a difference "
            f"below the floor is not a ranking. {TIERS_NOTE} Click a column to sort. "
            "<a href='rules.html'>Rules</a>.</p>"
            + ("<h2>Official boards</h2>" + "".join(official_sections) if official_sections else "")
            + others + ("" if any(groups.values()) else "<p>No entries yet.</p>"))
    if min_seeds_of(results) is not None:  # perfgraphs quickstart's local run, not a board
        body = ("<p class=note id='preview'><strong>Local preview</strong>: one seed per baseline, run on this "
                "machine by <code>perfgraphs quickstart</code>. A board's record needs five seeds and is scored "
                "by the isolated harness; these rows are neither."
                + (f" The official boards: <a id='official' href='{html.escape(official_site.resolve().as_uri())}'>"
                   f"{html.escape(str(official_site))}</a>." if official_site else "") + "</p>" + body)
    write_page(out / "index.html", _page("perfgraphs leaderboard", body))
    rules = _rules_text()
    write_page(out / "rules.html", _page("rules", f"<p><a href='index.html'>← leaderboard</a></p><pre>{html.escape(rules)}</pre>"))
    return out / "index.html"
