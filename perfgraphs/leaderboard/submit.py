"""Check and score a submission: ``evaluate_submission`` is ``perfgraphs check`` (nothing is
written), ``submit`` is ``perfgraphs submit`` (the same, then one record appended to
``leaderboard/results/<dataset>.jsonl`` and one MLflow run).

Order: cheap checks first (metadata, seeds, duplicate, dataset version and hash, hidden-label
commitment), so a defective submission is rejected before any of its code runs; then one
sandboxed process per seed (code) or the per-seed files (predictions); then scoring in this
process, which is the only place the test labels exist.

The protocol is the benchmark runner's (:func:`perfgraphs.evaluation.protocol.protocol_parts`):
a graph config's standard split, or a tabular config's 5-fold cross-validation (its official
leave-models-out folds, or ``protocol`` stratified-5-fold for the secondary board), where
each seed runs one process per fold (trained on the other folds' rows, predicting the held-out
fold's inputs) and the pooled out-of-fold predictions of every row are scored at once — the same
numbers ``perfgraphs benchmark`` gives the same predictor.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Task, task
from perfgraphs.leaderboard import frozen_fits
from perfgraphs.leaderboard.records import builds, check
from perfgraphs.leaderboard.sandbox import confine, isolation
from perfgraphs.evaluation.scoring import PER_CONFIG_KEY, score_seed
from perfgraphs.leaderboard.sandbox.harness import (INPUT_COLUMNS, Limits, SeedFailed, SeedOutput, as_table, prepare_job,
                                           run_seed)
from perfgraphs.leaderboard.submission import Submission, SubmissionError, load_submission
from perfgraphs.leaderboard.records.tiers import scored_tier

KEEP = ("seed", "n", "mape_pct", "rmse", "acc_5_pct", "acc_10_pct", "acc_15_pct", "kendall_tau", "per_family",
        "predictions_sha256", PER_CONFIG_KEY)
# What the harness measured per seed, kept in the record beside the scores
HARNESS_MEASURED = ("fit_seconds", "predictions_per_second", "peak_memory_mb", "fit_cpu_seconds",
                    "predict_cpu_seconds", "cores")
# A hidden-set record carries aggregate scores only: per-row pairs (in an order the public plan
# fixes) or per-family scores of a dozen rows let a reader rebuild the hidden labels.
PER_ROW_OR_GROUP = ("per_family", "per_platform", "y_pred", PER_CONFIG_KEY)


def predictions_sha256(ids: list[str], pred: np.ndarray) -> str:
    """sha256 of one seed's predictions as ``sample_id<TAB>value`` lines (repr of the float64) in
    test-id order: the record names exactly the numbers it scored."""
    lines = "".join(f"{i}\t{float(v)!r}\n" for i, v in zip(ids, pred))
    return hashlib.sha256(lines.encode()).hexdigest()


def _json_safe(value):
    """Metrics as strict JSON: an undefined value (Kendall's τ of constant predictions is NaN)
    becomes None, shown as "–"; json.dumps would otherwise write the invalid token NaN."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


@dataclass(frozen=True)
class SubmitOptions:
    dataset: str | None = None  # default: submission.yaml's dataset block
    config: str | None = None
    target: str | None = None
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)  # code route; files decide for predictions
    quick: bool = False
    limits: Limits = field(default_factory=Limits)
    hidden_labels: Path | None = None
    results_root: Path | None = None  # default leaderboard/results
    home: Path | None = None  # PERFGRAPHS_HOME (datasets, MLflow)
    protocol: str | None = None  # a cross-validated config's fold protocol (default: its official one)
    # frozen fits (frozen_fits): write each seed's fitted state here instead of a record (``--freeze``),
    # or score a hidden set from the states kept here, without fitting (``--frozen``)
    freeze: Path | None = None
    frozen: Path | None = None


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)
    submission: Submission | None = None
    entry: object | None = None  # records.Entry when accepted
    run_log: object | None = None  # mlflow_log.RunLog when accepted
    data: object | None = None  # ProtocolData
    warnings: list[str] = field(default_factory=list)
    task: Task | None = None  # the board it is scored on, resolved once
    kept_ratios: list | None = None  # a hidden-set score's per-configuration ratios, for the keeper only
    outputs: list = field(default_factory=list)  # the harness's SeedOutputs (a freezing run's states)
    frozen: object | None = None  # frozen_fits.FrozenFits a hidden score predicted from

    @property
    def ok(self) -> bool:
        return not self.problems and self.entry is not None


@dataclass
class _TestSet:
    ids: list[str]
    y_true: np.ndarray
    family: list[str]
    rows: object  # Arrow table / HF part with the input columns
    name: str = "public"
    sha256: str = ""

    def groups(self) -> dict:
        """Per-group breakdowns the Evaluator adds: family, and platform on multi-platform configs."""
        out = {"family": self.family}
        columns = self.rows.column_names
        if "platform" in columns:
            table = as_table(self.rows)
            out["platform"] = [str(p) for p in table.column("platform").to_pylist()]
        return out


def _board(sub: Submission, opts: SubmitOptions, problems: list[str]) -> Task | None:
    """The board the submission is scored on (the options, else submission.yaml's dataset block),
    resolved against the registry once."""
    ref = sub.meta.dataset
    names = []
    for key, flag in (("name", "dataset"), ("config", "config"), ("target", "target")):
        value = getattr(opts, flag) or getattr(ref, key)
        if not value:
            problems.append(f"no {flag} given: pass --{flag} or set dataset.{key} in submission.yaml")
        names.append(value)
    if problems:
        return None
    try:
        return task(*names)
    except PerfgraphsError as exc:
        problems.append(f"{exc}: see `perfgraphs datasets list`")
        return None


def _test_set(data, board: Task, opts: SubmitOptions, problems: list[str],
              root: Path | None = None) -> _TestSet | None:
    from perfgraphs.leaderboard.records.hidden import HiddenLabelsError, load_hidden

    target = board.target.name
    if opts.hidden_labels is not None and board.cross_validated:
        problems.append(f"--hidden-labels: {data.dataset}/{data.config} is a tabular config, scored by 5-fold "
                        "cross-validation over all its rows; hidden test sets exist for graph configs only: "
                        "drop --hidden-labels")
        return None
    if opts.hidden_labels is None:
        test = data.test
        return _TestSet(list(map(str, test["sample_id"])), np.asarray(test[target], dtype=float),
                        list(map(str, test["family"])), test)
    problem = _keeper_problem(opts.hidden_labels, board, root)
    if problem is not None:
        problems.append(f"--hidden-labels: {problem}")
        return None
    try:
        hidden = load_hidden(opts.hidden_labels, board)
    except HiddenLabelsError as exc:
        problems.append(str(exc))
        return None
    public = set(as_table(data.train).column("structure_hash").to_pylist())
    if data.validation is not None:
        public |= set(as_table(data.validation).column("structure_hash").to_pylist())
    shared = public & set(hidden.rows.column("structure_hash").to_pylist())
    if shared:
        problems.append(f"the hidden test set shares {len(shared)} graph structure(s) with the training/validation "
                        "parts: build the hidden set from structures outside the public splits")
        return None
    rows = hidden.rows
    return _TestSet([str(i) for i in rows.column("sample_id").to_pylist()],
                    np.asarray(rows.column(target).to_pylist(), dtype=float),
                    [str(f) for f in rows.column("family").to_pylist()], rows, "hidden", hidden.sha256)


def _keeper_problem(keeper: Path, board: Task, root: Path | None) -> str | None:
    """Why the keeper folder would show its labels to a predictor (None: it would not): the sandbox
    is what keeps them from it, so a machine without one scores no hidden set; the folder, the
    labels file (through any link) and the kept scores must lie outside every folder a sandbox reads,
    and the labels file may have no other name (a hard link is the same file elsewhere)."""
    from perfgraphs.leaderboard.records.hidden import hidden_file
    from perfgraphs.leaderboard.records.sealed_ranks import SCORES_DIR

    if isolation.unavailable_reason() is not None:
        return (f"hidden labels are scored only inside the sandbox, and it is not available here "
                f"({isolation.unavailable_reason()})")
    labels = hidden_file(keeper, board.dataset.name, board.config.name)
    also = (root,) if root is not None else ()
    for path in (keeper, labels, Path(keeper) / SCORES_DIR):
        seen = isolation.readable_root(path, also=also)  # resolved: a link is followed to what it names
        if seen is not None:
            return (f"{path} is (or leads) inside {seen}, which every sandbox reads: keep the hidden labels in a "
                    "folder no predictor can read ($PERFGRAPHS_HIDDEN_DIR outside the system folders, the Python "
                    "installation and the submission)")
    try:
        links = os.stat(labels).st_nlink
    except OSError:
        links = 1  # not there: load_hidden says so
    if links > 1:
        return f"{labels} has {links - 1} other name(s) (hard links): the labels file must have one name, in the keeper"
    return None


def _input_columns(board: Task) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The test-input allow-list and the config's label columns (a tripwire on the allow-list;
    None: the graph configs' measurement columns)."""
    if not board.cross_validated:
        return INPUT_COLUMNS, None
    from perfgraphs.evaluation.tabular_protocol import input_columns

    return input_columns(board.dataset, board.config), board.label_columns


def _part_name(rows, k: int, n: int) -> str:
    """How messages name a part: ``fold 3`` of a cross-validation (its folds come in order, under
    either fold protocol; the rows' ``fold`` column is the stratified protocol's)."""
    return "" if n == 1 else f"fold {k}"


def hidden_run_order(seeds) -> tuple[list[int], int | None]:
    """(the order a hidden board's seeds run in, the seed run once more after them all, or None).

    Seeds of one run share a kernel, and every machine-wide number it keeps (a counter, a load, a free
    block count, a timing) is a channel from one seed to the next: passes 69 to 75 each found one and had a
    seed score the running mean of the frozen fits before it. Closing them one by one does not end the
    family, so the harness tests what every such relay changes: it runs the seeds in an order drawn in
    secret, then one of them other than the first (drawn in secret too) once more, last, and refuses the
    record if that run's predictions differ from its first (check.check_run_again). A relay passes only if
    every seed could predict again exactly what it predicted with the state it was handed then: the
    channel must carry every earlier seed's level and the order to the end of the run."""
    draw = secrets.SystemRandom()
    order = draw.sample(sorted(set(seeds)), len(set(seeds)))  # each seed once: a seed twice ran twice in order
    return order, (draw.choice(order[1:]) if len(order) > 1 else None)


def _run_code(sub: Submission, parts: list, test: _TestSet, target: str, opts: SubmitOptions,
              positive: bool, problems: list[str], columns: tuple, isolated: bool, frozen=None) -> list:
    """One sandboxed process per seed and part (the config's test part, or each cross-validation
    fold); a seed's predictions are its parts' predictions in order, which must cover the test
    set once. Stops at the first run with a problem."""
    outputs = []
    n = len(parts)
    with tempfile.TemporaryDirectory(prefix="perfgraphs-submit-") as tmp:
        code = isolation.staged_code_dir(Path(tmp)) if isolated else None
        jobs = [prepare_job(Path(tmp) / f"part-{k}", sub.root, sub.meta.entry_point, target, opts.quick, train,
                            validation, rows, opts.limits, probe_seed=k, input_columns=columns[0],
                            label_columns=columns[1], part=_part_name(rows, k, n), freeze=opts.freeze is not None,
                            frozen=None if frozen is None else frozen.states)
                for k, (train, validation, rows) in enumerate(parts)]
        pooled_ids = [i for job in jobs for i in job.test_ids]
        found = check.check_prediction_ids("the protocol's parts", pooled_ids, test.ids)
        if found:  # a tripwire: the folds partition the scored rows by construction
            problems.extend(found)
            return []
        def run_parts(seed: int) -> list | None:
            """The seed's run of every part (None, its problem added, at the first that fails a check)."""
            runs = []
            for job in jobs:
                if opts.hidden_labels is not None:  # each run on an empty page cache (confine.drop_page_cache)
                    why = confine.drop_page_cache()
                    if why is not None:
                        problems.append(why)
                        return None
                try:
                    out = run_seed(job, seed, opts.limits, code)
                except SeedFailed as exc:
                    problems.append(str(exc))
                    return None
                if opts.freeze is not None and (why := frozen_fits.state_problem(out)) is not None:
                    problems.append(why)  # at its seed: the seeds after it would fit for nothing
                    return None
                label = job.who(seed)
                found = check.check_values(label, out.pred, job.n_test, positive)
                found = found or check.check_invariance(label, out.pred, out.probe_pred, job.perm)
                found += check.check_hyperparameters(sub.meta.hyperparameters.chosen, out.config)
                if found:
                    problems.extend(found)
                    return None
                runs.append(out)
            return runs

        order, again = hidden_run_order(opts.seeds) if opts.hidden_labels is not None else (list(opts.seeds), None)
        runs_of = {}
        for seed in order:
            runs_of[seed] = run_parts(seed)
            if runs_of[seed] is None:
                return []
        if again is not None:
            runs = run_parts(again)
            if runs is None:
                return []
            found = [p for job, first, out in zip(jobs, runs_of[again], runs)
                     for p in check.check_run_again(job.who(again), first.pred, out.pred)]
            if found:
                problems.extend(found)
                return []
        for seed in sorted(runs_of):
            runs = runs_of[seed]
            outputs.append(runs[0] if n == 1 else SeedOutput(
                seed=seed, pred=np.concatenate([r.pred for r in runs]),
                probe_pred=np.concatenate([r.probe_pred for r in runs]),  # each in its fold's probe order (checked)
                fit_seconds=sum(r.fit_seconds for r in runs), predict_seconds=sum(r.predict_seconds for r in runs),
                num_params=runs[0].num_params, config=runs[0].config,
                peak_memory_mb=_max_or_none(r.peak_memory_mb for r in runs), confinement=runs[0].confinement,
                fit_cpu_seconds=_sum_or_none(r.fit_cpu_seconds for r in runs),
                predict_cpu_seconds=_sum_or_none(r.predict_cpu_seconds for r in runs), cores=runs[0].cores))
    return outputs


def _mean_or_none(values: list) -> float | None:
    return None if not values or any(v is None for v in values) else float(np.mean(values))


def _max_or_none(values) -> float | None:
    """The largest peak, or None where any run's is not measured (no memory cgroup: harness.stated_peak_bytes)."""
    values = list(values)
    return None if not values or any(v is None for v in values) else float(max(values))


def _sum_or_none(values) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else float(sum(values))


_PREDICTION_COLUMNS = ("sample_id", "target", "value")
MAX_PREDICTION_STRING = 1024  # characters of one sample_id or target: ids are short


def _prediction_table(path: Path, n_test: int):
    """(the sample_id, target and value columns of a predictions file, None), or (None, the line that
    refuses it). Sized from its metadata before anything is read (twenty-third pass of 2026-12-02:
    the file was read whole, and a 627-byte Parquet of one list row of 70 M values is 1.8 GB once
    read): a nested column, or more rows (or values in a column) than twice the test part and 1000,
    is refused; strings are read as dictionaries and refused past MAX_PREDICTION_STRING characters
    (one long id repeated is small until decoded)."""
    from perfgraphs.leaderboard.isolated import ChildFailed, in_child
    from perfgraphs.leaderboard.submission import read_regular

    unreadable = (f"{path.name}: not a readable Parquet file ({{}}): write it with pyarrow or "
                  "pandas.DataFrame.to_parquet")
    try:
        data = read_regular(path, 512 * 1024 * 1024)
    except Exception as exc:
        return None, unreadable.format(type(exc).__name__)
    # read in a forked child: pyarrow aborts the process (exit 134) building the column-chunk
    # metadata of a 2.2 KB file with one footer byte changed, and `submit`/`check` died with it
    # (twenty-fourth pass of 2026-12-02); a child that dies is a refusal like any unreadable file
    try:
        return in_child(_read_prediction_table, path.name, data, n_test, unreadable)
    except ChildFailed as exc:
        return None, unreadable.format(str(exc))


def _read_prediction_table(label: str, data: bytes, n_test: int, unreadable: str):
    """:func:`_prediction_table` once the file's bytes are read; run in a forked child."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        meta, schema = parquet.metadata, parquet.schema_arrow
    except Exception as exc:
        return None, unreadable.format(type(exc).__name__)
    missing = [c for c in _PREDICTION_COLUMNS if c not in schema.names]
    if missing:
        return None, f"{label}: missing column(s) {', '.join(missing)}: the columns are sample_id, target, value"
    # an extension column (a canonical ``json`` sample_id) stopped check/submit with "internal error:
    # ArrowNotImplementedError" from the length check below (twenty-sixth pass of 2026-12-03)
    nested = [f"{f.name} ({f.type})" for f in schema if f.name in _PREDICTION_COLUMNS
              and (pa.types.is_nested(f.type) or isinstance(f.type, pa.BaseExtensionType))]
    if nested:
        return None, (f"{label}: nested column(s) {', '.join(nested)}: sample_id, target and value hold one "
                      "plain value a row (no list, struct or extension type)")
    most = max([meta.num_rows] + [meta.row_group(g).column(c).num_values for g in range(meta.num_row_groups)
                                  for c in range(meta.num_columns)])
    if most > 2 * n_test + 1000:
        return None, (f"{label}: {most} rows (or values in a column) for {n_test} test samples, refused before "
                      "it is read: give exactly one prediction per test sample_id")
    leaves = [meta.schema.column(c) for c in range(meta.num_columns)]
    strings = [c.path for c in leaves if c.physical_type == "BYTE_ARRAY" and c.path in _PREDICTION_COLUMNS]
    try:
        table = pq.read_table(pa.BufferReader(data), columns=list(_PREDICTION_COLUMNS), read_dictionary=strings or None)
    except Exception as exc:
        return None, unreadable.format(type(exc).__name__)
    for name in strings:
        for chunk in table.column(name).chunks:
            words = chunk.dictionary if pa.types.is_dictionary(chunk.type) else chunk
            if not any(is_(words.type) for is_ in (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
                                                   pa.types.is_large_binary)):
                continue  # a decimal stored as a byte array: a number, of bounded width
            if len(words) and (pc.max(pc.binary_length(words)).as_py() or 0) > MAX_PREDICTION_STRING:
                return None, (f"{label}: column {name} holds a value over {MAX_PREDICTION_STRING} characters: "
                              "sample ids and the target name are short")
    problem = _unreadable_values(label, table)
    return (None, problem) if problem is not None else (table, None)


def _unreadable_values(label: str, table) -> str | None:
    """Why a column of the predictions cannot be read as Python values (None: every one can), found in
    the reader's child: the caller reads them with ``to_pylist``, outside any ``try``, and a timestamp
    column past the year 9999 (``timestamp[ms]`` of 2**60) made it raise OverflowError, which stopped
    `check` with "internal error" (eighty-ninth pass). The table is at most twice the test part."""
    for name in _PREDICTION_COLUMNS:
        try:
            table.column(name).to_pylist()
        except Exception as exc:  # noqa: BLE001 — pyarrow's conversions raise what they raise
            return (f"{label}: column {name} of type {str(table.column(name).type)[:80]} does not read as values "
                    f"({type(exc).__name__}): write sample_id and target as strings and value as floats")
    return None


def _read_predictions(sub: Submission, test: _TestSet, target: str, positive: bool,
                      problems: list[str]) -> dict[int, np.ndarray]:
    """seed → predictions aligned with the test ids; every defect of every file is reported."""
    files = sub.prediction_files()
    if not files:
        problems.append(f"no seed-<k>.parquet files in {sub.root / sub.meta.predictions}: write one file per seed "
                        "with columns sample_id, target, value")
        return {}
    out = {}
    position = {sid: i for i, sid in enumerate(test.ids)}
    for seed, path in sorted(files.items()):
        label = path.name
        table, problem = _prediction_table(path, len(test.ids))
        if problem is not None:
            problems.append(problem)
            continue
        targets = set(map(str, table.column("target").to_pylist()))
        if targets != {target}:
            problems.append(f"{label}: target column holds {sorted(targets)}, expected only {target!r}")
            continue
        ids = [str(i) for i in table.column("sample_id").to_pylist()]
        try:
            values = np.asarray(table.column("value").to_pylist(), dtype=np.float64)
        except (TypeError, ValueError):
            problems.append(f"{label}: column value is not numeric: write the predictions as floats")
            continue
        found = check.check_prediction_ids(label, ids, test.ids)
        found += check.check_values(label, values, len(values), positive)
        if found:
            problems.extend(found)
            continue
        aligned = np.empty(len(test.ids))
        aligned[[position[i] for i in ids]] = values
        out[seed] = aligned
    return out


def _label_data(sub: Submission, test: _TestSet, board, data) -> list[str]:
    """Refuse a submission whose files carry the scored labels, their repeated measurements and
    those measurements' means (what the ranks are against: eighteenth pass), or the predict
    artifacts' labels."""
    from perfgraphs.leaderboard.label_scan import LabelArray, artifact_label_arrays, scan_submission
    from perfgraphs.leaderboard.records.ranks import part_label_repetitions

    target = board.target.name
    arrays = [LabelArray(f"the {test.name} test labels of {target}", test.y_true)]
    repetitions = part_label_repetitions(board, data.test) if test.name == "public" else None
    if repetitions is not None:
        arrays += [LabelArray(f"the means of the repeated measurements of {target}",
                              repetitions.labels / repetitions.to_means()),
                   LabelArray(f"the repeated measurements of {target}", np.concatenate(repetitions.values))]
    return scan_submission(sub.root, [*arrays, *artifact_label_arrays()])


def _identity(**fields) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:16]


def run_identity(meta, scoring: _Scoring, data, test, seeds: list[int], quick: bool, frozen_fit: str = "") -> str:
    """A record's ``run_identity``: what names its run (the MLflow run, the keeper's kept scores
    ``scores/<set>/<target>/<run_identity>.json``, the sealed ranks' entry). It names the authors:
    without them, a rival's submission stating a pending team's method and code commit, scored after
    it while neither had landed (``check`` compares the records landed), was the same run, its kept
    scores replaced the team's, and the keeper's ranks left the team's record out and ranked the
    rival's in its place (seventy-third pass)."""
    board = scoring.board
    return _identity(method=scoring.method, authors=meta.authors, commit=meta.code_commit,
                     dataset=board.dataset.name, config=board.config.name, target=board.target.name,
                     seeds=seeds, quick=quick, content_hash=data.content_hash, test_set=test.name, hidden=test.sha256,
                     **({"protocol": scoring.protocol} if scoring.protocol else {}),
                     **({"frozen_fit": frozen_fit} if frozen_fit else {}))


@dataclass(frozen=True)
class _Scoring:
    """What every step after the cheap checks needs: the board, its scorer, the protocol the
    entry is scored under and the entry's method name."""

    board: Task
    evaluator: object  # perfgraphs.evaluate.Evaluator of the board
    protocol: str  # "" for a graph config's standard split
    method: str


def evaluate_submission(path: str | Path, opts: SubmitOptions | None = None, record: bool = False) -> Verdict:
    """Every check, and the scores; writes nothing. ``verdict.problems`` lists what to fix.

    ``record``: the scores are for a verified record (``submit``), so submitted code must run
    isolated; without bubblewrap it is refused before it runs. ``check`` (record False) then runs
    it as a plain child process, with a warning: the user is checking their own code."""
    from perfgraphs.leaderboard.records.boards import results_folder_problem

    opts = opts or SubmitOptions()
    verdict = Verdict()
    # a file as ``--results``: every name was checked against no record and ``check`` said OK where
    # ``submit`` refuses it (hundred-and-twenty-sixth pass, side e's lead)
    if opts.results_root is not None and (why := results_folder_problem(Path(opts.results_root))):
        verdict.problems.append(why)
        return verdict
    try:
        sub = load_submission(path)
    except SubmissionError as exc:
        verdict.problems.extend(exc.problems)
        return verdict
    verdict.submission = sub
    verdict.task = _board(sub, opts, verdict.problems)
    if verdict.task is None:
        return verdict
    scoring = _admitted(sub, verdict.task, opts, record, verdict)
    if scoring is None:
        return verdict
    loaded = _scored_data(sub, scoring, opts, record, verdict)
    if loaded is None:
        return verdict
    parts, test = loaded
    outputs, preds = _predictions(sub, scoring, parts, test, opts, record, verdict)
    if verdict.problems:
        return verdict
    verdict.outputs = outputs
    per_seed = _seed_scores(sub, scoring, test, preds, verdict.problems)
    if verdict.problems:
        return verdict
    verdict.entry, verdict.run_log = _recorded(sub, scoring, verdict.data, test, outputs, per_seed, opts,
                                               verdict.frozen.manifest_sha256 if verdict.frozen is not None else "")
    if why := _unrecordable(verdict.entry):  # what `submit` would refuse to write, `check` refuses too
        verdict.problems.append(f"{verdict.entry.method}: the record would not be valid ({why})")
        verdict.entry = verdict.run_log = None
        return verdict
    if test.name == "hidden":  # the keeper ranks hidden boards from these (records.sealed_ranks)
        verdict.kept_ratios = [list(s[PER_CONFIG_KEY]) for s in per_seed]
    return verdict


def _unrecordable(entry) -> str | None:
    """Why the record store would refuse ``entry`` (None: it would not), its number of seeds aside
    (``check`` scores fewer): a paper citation with an accent passed `check` and was refused by
    `submit` after every seed had run (twenty-seventh pass of 2026-12-03)."""
    from dataclasses import asdict

    from perfgraphs.leaderboard.records import record_check
    from perfgraphs.leaderboard.records.results import _FIELDS

    # seeds aside too: `submit` refuses picked seeds before running anything, `check` warns (_admitted)
    return record_check.record_problem(asdict(entry), _FIELDS, 1, seeds_from_zero=False)


def _admitted(sub: Submission, board: Task, opts: SubmitOptions, record: bool, verdict: Verdict) -> _Scoring | None:
    """The cheap checks, before any data is loaded or code runs: seeds, reserved names, duplicate.
    A record needs five seeds; ``check`` scores fewer (one seed is a fifth of the wait while a
    predictor is being written) and says that ``submit`` will not record them."""
    from perfgraphs.evaluation.evaluator import Evaluator

    meta, problems = sub.meta, verdict.problems
    protocol = board.protocol(opts.protocol)
    seeds = sorted(set(opts.seeds if sub.kind == "code" else sub.prediction_files()))
    too_few = check.check_seeds(seeds)
    if too_few and seeds and not record and len(seeds) < check.MIN_SEEDS:
        verdict.warnings.append(f"scored on {len(seeds)} seed(s) ({', '.join(map(str, seeds))}), enough for a "
                                f"check: `perfgraphs submit` needs {check.MIN_SEEDS} distinct seeds")
    else:
        problems += too_few
    problems += check.check_seed_range(seeds)  # never demoted to a warning: no record holds such a seed
    # picked seeds: a record only `submit` writes, so `check` (one seed at a time while a predictor is
    # written) says so and scores them; predictions files are self-reported whatever their seeds
    picked = check.check_seeds_from_zero(seeds) if sub.kind == "code" else []
    (problems if record else verdict.warnings).extend(picked)
    problems += check.check_reserved(meta.method, meta.authors, sub.root, opts.results_root)
    problems += check.check_name_owner(opts.results_root, board, meta.method, meta.authors)
    method = meta.method + (" (quick)" if sub.kind == "code" and opts.quick else "")
    problems += _recorded_name_problems(meta.method, method)
    test_set_name = "hidden" if opts.hidden_labels is not None else "public"
    problems += _frozen_fit_problems(sub, board, opts)
    if opts.freeze is None:  # a freezing run records nothing: the public record of its commit may exist
        problems += check.check_duplicate(opts.results_root, board, method, meta.code_commit, test_set_name, protocol)
    return None if problems else _Scoring(board, Evaluator.for_task(board), protocol, method)


def _frozen_fit_problems(sub: Submission, board: Task, opts: SubmitOptions) -> list[str]:
    """``--freeze`` fits on the public training part (the code route, a graph config's split) and
    records nothing; ``--frozen`` predicts a hidden set from such fits."""
    if opts.freeze is None and opts.frozen is None:
        return []
    flag = "--freeze" if opts.freeze is not None else "--frozen"
    if opts.freeze is not None and opts.frozen is not None:
        return ["--freeze and --frozen: freeze the fits first, then score a hidden set --frozen from them"]
    if sub.kind != "code":
        return [f"{flag}: only a code submission has fits to freeze"]
    if board.cross_validated:
        return [f"{flag}: {board.name} is scored by cross-validation, one fit per fold: frozen fits are for graph "
                "configs' standard split"]
    if opts.freeze is not None and opts.hidden_labels is not None:
        return ["--freeze with --hidden-labels: fits are frozen on the public parts, before any hidden round"]
    if opts.frozen is not None and opts.hidden_labels is None:
        return ["--frozen without --hidden-labels: frozen fits score a hidden round (a public board's record fits "
                "in the harness)"]
    return []


def _frozen_identity(sub: Submission, board: Task, method: str, data, opts: SubmitOptions) -> dict:
    """What a frozen fit belongs to (frozen_fits): the submission's content, the board, the build."""
    from perfgraphs.leaderboard.frozen_fits import submission_sha256

    return {"submission_sha256": submission_sha256(sub.root), "method": method,
            "entry_point": sub.meta.entry_point, "dataset": board.dataset.name, "config": board.config.name,
            "target": board.target.name, "quick": opts.quick, "dataset_version": data.version,
            "dataset_content_hash": data.content_hash}


def _read_frozen(sub: Submission, scoring: _Scoring, data, test: _TestSet, opts: SubmitOptions, problems: list[str]):
    """The frozen fits a hidden score predicts from (None, with the problem, when they do not hold):
    this submission's on this board and build, every seed's, committed before the set's commitment."""
    from perfgraphs.leaderboard.frozen_fits import MANIFEST, FrozenFitError, frozen_before, read_frozen
    from perfgraphs.leaderboard.records.hidden import commitment_path

    board = scoring.board
    try:
        frozen = read_frozen(opts.frozen, _frozen_identity(sub, board, scoring.method, data, opts), opts.seeds)
    except FrozenFitError as exc:
        problems.append(str(exc))
        return None
    why = frozen_before(Path(opts.frozen).absolute() / MANIFEST,
                        commitment_path(board.dataset.name, board.config.name).absolute(), test.sha256)
    if why is not None:
        problems.append(f"--frozen: {why}")
        return None
    return frozen


def _recorded_name_problems(written: str, method: str) -> list[str]:
    """The name the record will carry, checked as the readers check it: ``--quick`` appends
    ` (quick)`, and a method of 57 to 64 characters (within submission.yaml's limit) made a record of
    65 to 72 that `submit` appended after every seed had run and every board then skipped, "method is
    72 characters long" (thirty-seventh pass). Checked before anything runs, in one line."""
    if method == written:
        return []  # submission.yaml's own name: checked where it is read
    from perfgraphs.leaderboard.records import names

    room = names.METHOD_MAX_CHARS - (len(method) - len(written))
    return [f"--quick records the method as {method[:80]!r}, which the boards would skip ({why}): "
            f"give a method of at most {room} characters for a --quick run"
            for why in names.check_charset("method", method)]


def _scored_data(sub: Submission, scoring: _Scoring, opts: SubmitOptions, record: bool,
                 verdict: Verdict) -> tuple[list, _TestSet] | None:
    """The protocol's parts and the scored test set (``verdict.data``: the loaded protocol), once
    the submission agrees with the build: submission.yaml's dataset block, the board's pinned
    build, no scored labels in its files."""
    from perfgraphs.evaluation.protocol import protocol_parts

    problems, board = verdict.problems, scoring.board
    try:
        # the benchmark runner's protocol: the standard split, or one part per cross-validation fold
        parts, data = protocol_parts(board, opts.home, protocol=scoring.protocol or None)
    except PerfgraphsError as exc:
        problems.append(f"cannot load {board.dataset.name}/{board.config.name}: {exc}")
        return None
    verdict.data = data
    problems += check.check_dataset_ref(sub.meta.dataset, board, data.version, data.content_hash)
    other_build = builds.mismatch(board, data.content_hash, data.generators, builds.pins_file(opts.results_root))
    if other_build and record:
        problems.append(f"{other_build}: an entry on another build would not be ranked; rebuild from a clean "
                        "checkout of this commit (`perfgraphs datasets build`) with the board's generator versions")
    elif other_build:
        verdict.warnings.append(f"{other_build}: scores here are not comparable with the board's")
    test = _test_set(data, board, opts, problems, sub.root)
    if problems or test is None:
        return None
    problems += _label_data(sub, test, board, data)
    return None if problems else (parts, test)


def _predictions(sub: Submission, scoring: _Scoring, parts: list, test: _TestSet, opts: SubmitOptions,
                 record: bool, verdict: Verdict) -> tuple[list, dict[int, np.ndarray]]:
    """(the harness's outputs, seed → predictions of the test set): the code run in the sandbox, one
    process per seed and part, or the submitted prediction files."""
    problems, target = verdict.problems, scoring.board.target
    if sub.kind != "code":
        return [], _read_predictions(sub, test, target.name, target.positive, problems)
    try:
        columns = _input_columns(scoring.board)
    except PerfgraphsError as exc:
        problems.append(str(exc))
        return [], {}
    unisolated = isolation.unavailable_reason()
    if unisolated and record:
        problems.append(f"cannot record a verified entry: the predictor must run isolated and {unisolated}; "
                        "install bubblewrap, or submit predictions files (self-reported tier)")
        return [], {}
    if unisolated:
        verdict.warnings.append(f"the predictor ran without isolation ({unisolated}): "
                                "`perfgraphs submit` will refuse to record it here")
    data = verdict.data
    runs = ([(p.train, p.validation, p.test) for p in parts] if test.name == "public"
            else [(data.train, data.validation, test.rows)])
    if opts.frozen is not None:
        verdict.frozen = _read_frozen(sub, scoring, data, test, opts, problems)
        if verdict.frozen is None:
            return [], {}
        problems += _package_data_problems(
            scoring, test, "--frozen", "frozen fits predict a hidden set only beside the tables of the draw "
                                       "(check them out as they were)") if test.name == "hidden" else []
        if problems:
            return [], {}
    elif test.name == "hidden":
        problems += (_fitted_code_problems(sub, scoring, test) or _fitted_build_problems(scoring, data, test)
                     or _package_data_problems(scoring, test, "--hidden-labels"))
        if problems:
            return [], {}
    outputs = _run_code(sub, runs, test, target.name, opts, target.positive, problems, columns, not unisolated,
                        verdict.frozen)
    if verdict.frozen is not None:
        if not problems:
            problems += _replay_after_the_scored_runs(sub, scoring, data, opts, verdict.frozen, columns, not unisolated)
        if problems:
            return [], {}
        # the fit the record states: the frozen one, measured when it ran, and this run's own fit phase
        # (import, construct, load_state: fifty-second pass)
        for out in outputs:
            fit = verdict.frozen.measured(out.seed)
            out.fit_seconds = float(fit["fit_seconds"]) + out.fit_seconds
            out.fit_cpu_seconds = (None if fit.get("fit_cpu_seconds") is None or out.fit_cpu_seconds is None
                                   else float(fit["fit_cpu_seconds"]) + out.fit_cpu_seconds)
            out.peak_memory_mb = _max_or_none([out.peak_memory_mb, fit.get("peak_memory_mb")])
            out.cores = fit.get("cores") or out.cores  # the CPU set the fit ran on (fifty-first pass)
    return outputs, {o.seed: o.pred for o in outputs}


def _seed_scores(sub: Submission, scoring: _Scoring, test: _TestSet, preds: dict[int, np.ndarray],
                 problems: list[str]) -> list[dict]:
    """Every seed's scores (by the board's Evaluator), each finite, and agreeing with the scores
    submission.yaml reports."""
    from perfgraphs.evaluation.evaluator import EvaluationError

    per_seed = []
    for seed, pred in sorted(preds.items()):
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # a score that overflows is refused below, in one line
                scores = _json_safe(score_seed(scoring.evaluator, test.ids, test.y_true, pred, test.groups(), seed))
        except EvaluationError as exc:
            problems.append(f"seed {seed}: {exc}")
            return []
        problems += check.check_scores(f"seed {seed}", scores, pred)
        if problems:
            return []
        scores["predictions_sha256"] = predictions_sha256(test.ids, pred)
        per_seed.append(scores)
    if sub.meta.reported is not None:
        problems += check.check_reported(sub.meta.reported, [s["mape_pct"] for s in per_seed])
    return per_seed


def _recorded(sub: Submission, scoring: _Scoring, data, test: _TestSet, outputs: list, per_seed: list[dict],
              opts: SubmitOptions, frozen_fit: str = "") -> tuple:
    """The record and the MLflow run of the scored submission; a code submission's seeds carry
    what the harness measured of them."""
    from perfgraphs.evaluation.mlflow_log import RunLog

    meta, board = sub.meta, scoring.board
    verified = sub.kind == "code"  # the harness ran the code: timings are its own
    runs = {o.seed: o for o in outputs}
    for s in per_seed if verified else []:
        o = runs[s["seed"]]
        s.update(fit_seconds=o.fit_seconds, predictions_per_second=len(test.ids) / max(o.predict_seconds, 1e-9),
                 peak_memory_mb=o.peak_memory_mb, fit_cpu_seconds=o.fit_cpu_seconds,
                 predict_cpu_seconds=o.predict_cpu_seconds, cores=o.cores)
    fit_s = [runs[s["seed"]].fit_seconds for s in per_seed] if verified else []
    pps = [s["predictions_per_second"] for s in per_seed] if verified else []
    seeds = [s["seed"] for s in per_seed]
    identity = run_identity(meta, scoring, data, test, seeds, opts.quick, frozen_fit)
    entry = _entry(sub, scoring, data, test, outputs, per_seed, identity, frozen_fit)
    hidden = test.name == "hidden"
    if hidden:  # the keeper's signature: a hand-written hidden record cannot carry one (records.keeper_key)
        from dataclasses import replace

        from perfgraphs.leaderboard.records.keeper_key import record_message, sign
        from perfgraphs.leaderboard.records.digest import record_sha256

        entry = replace(entry, keeper_signature=sign(opts.hidden_labels, record_message(record_sha256(entry), entry.tier)))
    run_log = RunLog(
        run_name=f"{scoring.method}-{identity}", identity=identity, target=board.target.name,
        params={"method": scoring.method, "tier": entry.tier, "division": meta.division,
                "seeds": ",".join(map(str, seeds)), "quick": opts.quick, "test_set": test.name,
                "time_limit_s": opts.limits.time_limit_s, "memory_mb": opts.limits.memory_mb,
                **{f"hp.{k}": v for k, v in meta.hyperparameters.chosen.items()}},
        # the MLflow run of a hidden-set score gets its aggregates only, like the record
        per_seed=[{k: v for k, v in s.items() if not (hidden and k in PER_ROW_OR_GROUP)} for s in per_seed],
        y_true=np.array([]) if hidden else test.y_true, fit_seconds=fit_s, predictions_per_second=pps,
        tags={"tier": entry.tier, "authors": meta.authors, "code_url": meta.code_url,
              "code_commit": meta.code_commit, "division": meta.division, "external_data": str(meta.external_data),
              "test_set": test.name, "hidden_labels_sha256": test.sha256})
    return entry, run_log


def _entry(sub: Submission, scoring: _Scoring, data, test: _TestSet, outputs: list, per_seed: list[dict],
           identity: str, frozen_fit: str = ""):
    """The leaderboard record (:class:`perfgraphs.leaderboard.records.Entry`); a hidden-set record
    keeps aggregate scores only (:data:`PER_ROW_OR_GROUP`)."""
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.tracking import environment_tags

    meta, board = sub.meta, scoring.board
    verified = sub.kind == "code"
    hidden = test.name == "hidden"
    runs = {o.seed: o for o in outputs}
    seed_runs = [runs[s["seed"]] for s in per_seed] if verified else []
    return Entry(
        method=scoring.method, dataset=board.dataset.name, dataset_version=data.version,
        dataset_content_hash=data.content_hash, config=board.config.name, target=board.target.name,
        tier=scored_tier(sub.kind, test.name), division=meta.division, code_commit=meta.code_commit,
        per_seed=[{k: v for k, v in s.items() if (k in KEEP or k in HARNESS_MEASURED)
                   and not (hidden and k in PER_ROW_OR_GROUP)} for s in per_seed],
        isolation=outputs[0].confinement if verified else "",
        fit_seconds=float(np.mean([o.fit_seconds for o in seed_runs])) if verified else None,
        fit_cpu_seconds=_mean_or_none([o.fit_cpu_seconds for o in seed_runs]) if verified else None,
        cores=outputs[0].cores if verified else None,
        predictions_per_second=float(np.mean([s["predictions_per_second"] for s in per_seed])) if verified else None,
        num_params=outputs[0].num_params if verified else None,
        hardware=environment_tags()["cpu"] if verified else "not measured (self-reported)",
        run_identity=identity, authors=meta.authors, test_set=test.name, hidden_labels_sha256=test.sha256,
        code_url=meta.code_url, paper=meta.paper, external_data=meta.external_data,
        hyperparameters=dict(meta.hyperparameters.chosen),
        peak_memory_mb=_max_or_none(o.peak_memory_mb for o in outputs) if verified else None,
        actual_vs_predicted=[] if hidden else [[float(f"{t:.4g}"), float(f"{p:.4g}")]
                                               for t, p in zip(test.y_true, per_seed[0]["y_pred"])],
        protocol=scoring.protocol, frozen_fit=frozen_fit,
    )


def submit(path: str | Path, opts: SubmitOptions | None = None, log_mlflow: bool = True) -> tuple[Verdict, Path | None]:
    """Check, then write the record (and the MLflow run). Returns the verdict and the results file.

    The record is appended only if every results file still holds, byte for byte, what it held when
    the submission started (other submissions may have appended whole records meanwhile); the MLflow
    run is logged after the record, from the same numbers, so a rejected submission leaves neither."""
    from perfgraphs.evaluation.mlflow_log import log_run
    from perfgraphs.leaderboard.records.results import (DuplicateEntryError, InvalidRecordError, ResultsChangedError,
                                                append_entry, results_snapshot)

    opts = opts or SubmitOptions()
    if opts.freeze is not None:
        return _freeze(path, opts)
    if why := _results_folder_problem(opts.results_root):  # before any seed runs, not after
        return Verdict(problems=[why]), None
    before = results_snapshot(opts.results_root)
    verdict = evaluate_submission(path, opts, record=True)
    if not verdict.ok:
        return verdict, None
    try:
        written = append_entry(verdict.entry, root=opts.results_root, before=before)
    except DuplicateEntryError as exc:  # another submission of the same commit landed meanwhile
        verdict.problems.append(f"duplicate submission: {exc}: a new entry needs a new code commit")
        return verdict, None
    except (ResultsChangedError, InvalidRecordError) as exc:
        verdict.problems.append(str(exc))
        return verdict, None
    if verdict.kept_ratios is not None and opts.hidden_labels is not None:
        from perfgraphs.leaderboard.records.sealed_ranks import keep_scores

        try:
            keep_scores(opts.hidden_labels, verdict.entry, verdict.kept_ratios)
        except OSError as exc:  # the record stands; the keeper cannot rank it until it is scored again
            verdict.warnings.append(f"recorded, but its scores could not be kept for the hidden board's ranks ({exc})")
    if log_mlflow:
        try:
            log_run(verdict.run_log, verdict.data, opts.home)
        except Exception as exc:  # the record is canonical; a broken MLflow store must not undo it
            verdict.warnings.append(f"recorded, but MLflow logging failed ({type(exc).__name__}: "
                                    f"{str(exc).splitlines()[0][:200] if str(exc) else ''})")
    return verdict, written


def _fitted_code_problems(sub: Submission, scoring: _Scoring, test: _TestSet) -> list[str]:
    """Why a hidden set may not score this folder fitted in the harness (empty: it may): only code
    committed before the set was drawn, as a frozen fit must be (``frozen_fits.code_before``: a folder
    written after a probe's record held labels that record's per-seed MAPEs solved, seventy-ninth pass)."""
    from perfgraphs.leaderboard.frozen_fits import code_before
    from perfgraphs.leaderboard.records.hidden import commitment_path

    board = scoring.board
    why = code_before(sub.root, commitment_path(board.dataset.name, board.config.name).absolute(), test.sha256)
    return [] if why is None else [f"--hidden-labels: {why}"]


def _fitted_build_problems(scoring: _Scoring, data, test: _TestSet) -> list[str]:
    """Why a hidden set may not score a fit on this public build (empty: it may): a harness-fitted
    run trains on the build loaded now, so it must be the one ``builds.json`` pinned just before the
    set was drawn; rows a pull request added after the draw (a hidden family's neighbour measured,
    or labels a record's errors solved) are data no fit committed before the draw had (eighty-third
    pass, ``frozen_fits.pins_before``). A board with no pin then scores no harness-fitted run: --frozen."""
    from perfgraphs.leaderboard.frozen_fits import pins_before
    from perfgraphs.leaderboard.records.hidden import commitment_path

    board = scoring.board
    commitment = commitment_path(board.dataset.name, board.config.name).absolute()
    pin = builds.board_pin(pins_before(commitment, test.sha256) or {}, board.dataset.name, board.config.name, "public")
    then = pin.get("content_hash") if isinstance(pin, dict) else None
    if then == data.content_hash:
        return []
    pinned = f"build {then[:12]}" if isinstance(then, str) else "no build"
    return [f"--hidden-labels: the public build here ({data.content_hash[:12]}) is not the one pinned before the "
            f"set was drawn ({pinned} in builds.json beside {commitment.parent.name}/ then): a harness-fitted hidden "
            "run fits only on the data of the draw (rows added since are not its fit's); build that pin, or score "
            "fits frozen before the draw (--frozen)"]


def _package_data_problems(scoring: _Scoring, test: _TestSet, route: str, advice: str | None = None) -> list[str]:
    """Why a hidden set may not score a run beside the package data staged now (empty: it may): the
    sandbox stages the package's tables (``paths.CODE_DATA``) as the checkout holds them when scored.
    A pull request after the draw that edited one (a datasheet row's source link, its commit id spelling
    hidden labels) fed a fit committed before the draw data it never had (eighty-fourth pass), and a
    frozen fit the same at predict time, where its replay on the public test part sees nothing a
    predictor does only on rows that part lacks (eighty-sixth pass). ``route``: the flag the refusal
    names; ``advice``: what it says to do (``frozen_fits.package_data_before``'s own by default)."""
    from perfgraphs.leaderboard.frozen_fits import package_data_before
    from perfgraphs.leaderboard.records.hidden import commitment_path

    board = scoring.board
    commitment = commitment_path(board.dataset.name, board.config.name).absolute()
    why = package_data_before(commitment, test.sha256, **({"advice": advice} if advice else {}))
    return [] if why is None else [f"{route}: {why}"]


def _replay_after_the_scored_runs(sub: Submission, scoring: _Scoring, data, opts: SubmitOptions, frozen,
                                  columns: tuple, isolated: bool) -> list[str]:
    """The replay of a frozen state on the public test part (:func:`_frozen_replay_problems`), run after
    every scored run, never before: a run the predictor tells from a hidden one by its inputs, it left its
    state's level in a machine-wide number (the pipe-inode counter) that every hidden seed read and mixed
    into its own, the one run again included, so the run-again check saw nothing and the record's seeds
    scored an ensemble of two frozen fits (eightieth pass). Run last, what it leaves reaches no scored run."""
    return _frozen_replay_problems(sub, scoring, data, opts, frozen, columns, isolated)


def _frozen_replay_problems(sub: Submission, scoring: _Scoring, data, opts: SubmitOptions, frozen,
                            columns: tuple, isolated: bool) -> list[str]:
    """Why the frozen predictor, as it runs now, is not the one frozen (empty: it is): a seed's state
    predicts the public test part, in the sandbox, with the package code staged now, and must score it
    as the manifest says its freeze did. The manifest pins the submission folder, not the perfgraphs
    package the sandbox runs beside it (``isolation.staged_code_dir``: the ridge example's features, a
    reference's whole model), and a pull request that changed ``static_features`` after the set's
    commitment had a frozen ridge's verified record score a refit (seventy-eighth pass). Compared to
    ``check.INVARIANCE_RTOL``, not bit for bit (the four frozen GNN references replay theirs to 1e-7:
    threads move the last bits), and by the MAPE only (a near tie flipped moves Kendall's tau by more).
    One seed, drawn in secret, replays: the package code is every seed's, so a change that moves one
    seed's predictions moves any seed's unless it aims at some states (then it passes with the draw's odds),
    and a replay of every seed cost five more sandboxed runs a hidden submission (8 s each for a GNN)."""
    public_opts = replace(opts, hidden_labels=None, seeds=(secrets.choice(sorted(set(opts.seeds))),))
    replay: list[str] = []
    # the replay runs after the hidden seeds (eightieth pass), so on an emptied cache as each of them did: a
    # hidden seed's lookups left in the dentry cache (the sixty-ninth pass's relay) reached the replay and
    # moved its predictions, refusing the record whenever the replayed seed followed the seed run again
    if opts.hidden_labels is not None and (why := confine.drop_page_cache()) is not None:
        return [f"--frozen: {why}"]
    public = _test_set(data, scoring.board, public_opts, replay)
    outputs = [] if public is None else _run_code(
        sub, [(data.train, data.validation, public.rows)], public, scoring.board.target.name, public_opts,
        scoring.board.target.positive, replay, columns, isolated, frozen)
    if replay or not outputs:
        return [f"--frozen: predicting the public test part from the frozen states: {(replay or ['no output'])[0]}"]
    for out in outputs:
        then = next(s for s in frozen.manifest["seeds"] if s["seed"] == out.seed).get("public") or {}
        now = score_seed(scoring.evaluator, public.ids, public.y_true, out.pred, public.groups(), out.seed)
        was, is_now = then.get("mape_pct"), now.get("mape_pct")
        if not (isinstance(was, (int, float)) and isinstance(is_now, (int, float))
                and math.isclose(is_now, was, rel_tol=check.INVARIANCE_RTOL)):
            return [f"--frozen: seed {out.seed} does not predict the public test part as when it was frozen "
                    f"(MAPE {is_now!r} % now, {was!r} in the manifest): the code it runs changed since the freeze "
                    "(the perfgraphs package too); freeze it again with this code"]
    return []


def _freeze(path: str | Path, opts: SubmitOptions) -> tuple[Verdict, Path | None]:
    """``submit --freeze``: every check and the public scores as ``submit``, isolated; then each
    seed's fitted state and the manifest in ``opts.freeze`` instead of a record (frozen_fits)."""
    from perfgraphs.leaderboard.frozen_fits import FrozenFitError, used_folder, write_frozen

    folder = Path(opts.freeze)
    if (why := used_folder(folder)) is not None:  # before an hour of fits, not after
        return Verdict(problems=[why]), None
    verdict = evaluate_submission(path, opts, record=True)
    if not verdict.ok:
        return verdict, None
    identity = {**_frozen_identity(verdict.submission, verdict.task, verdict.entry.method, verdict.data, opts),
                "code_commit": verdict.submission.meta.code_commit}
    public = {s["seed"]: {k: s.get(k) for k in ("mape_pct", "kendall_tau", "predictions_sha256")}
              for s in verdict.entry.per_seed}
    try:
        return verdict, write_frozen(folder, identity, verdict.outputs, public)
    except (FrozenFitError, OSError) as exc:
        verdict.problems.append(str(exc))
        return verdict, None


def _results_folder_problem(root: Path | None) -> str | None:
    """Why records cannot be written under ``root`` (None: they can, the folder made if need be):
    ``--results`` under a regular file scored every seed, then stopped with "internal error:
    NotADirectoryError" (thirtieth pass of 2026-12-03)."""
    from perfgraphs.leaderboard.records.results import RESULTS_DIR

    folder = Path(root or RESULTS_DIR)
    for path in (folder, *folder.parents):
        try:
            if not path.exists() and not path.is_symlink():
                continue  # made by the append
        except OSError as exc:  # a name too long, a folder that cannot be searched
            return f"--results {str(folder)[:200]}: cannot be used ({exc.strerror}): give a folder"
        if not path.is_dir():
            return f"--results {str(folder)[:200]}: {str(path)[:200]} is not a folder: give a folder for the records"
        return None
    return None
