"""Rank groups from a paired bootstrap: which entries of a board the data can tell apart.

A board scores every entry on the same test configurations, so two entries are compared *paired*:
each bootstrap resample draws the test configurations with replacement once and scores every entry
on that same draw. Within a resample each entry also draws its seeds with replacement (the seed
spread), independently of the other entries (one entry's seed k has nothing to do with another's). Where the labels have repetitions (:class:`LabelRepetitions`), each configuration is scored
against the mean of its repetitions rather than the one measurement the build serves (the
contenders' ratios, taken against the served label, are put on that mean), and every drawn
configuration draws its repetitions (the label noise): its label becomes the mean of the drawn
repetitions. An entry's score is MAPE averaged over its seeds.

A label re-drawn from its repetitions adds error to every entry, a shift the intervals should not
show: each entry's mean shift from it, measured on the same draws with and without the label noise,
is taken out (nothing else is re-centred: drawing configurations and seeds is unbiased). From the
resamples, each pair of entries gets a two-sided bootstrap p-value for "their MAPEs differ" (each
entry's seeds drawn for it from a stream that no entry's content keys: :func:`seeds_drawn_apart_pvalue`). An
entry's rank is 1 + the number of entries significantly better than it: its comparisons with the
entries of lower mean are one family, tested with Holm's step-down procedure (family-wise error 5 %
per rank statement), and the rank is made monotone in the point estimate (no entry ranks above one
with a lower mean MAPE). Entries that share a rank are a **rank group**. This is the rule of Chatbot
Arena's leaderboard ("1 + models statistically better"), with a paired test in place of overlapping
marginal intervals. A wide interval (a noisy seed, a small test set) never puts an entry ahead of
one with a lower mean; it can keep an entry in a group the data cannot separate it from, and the
row shows that interval.

Each entry also gets its effect size, the paired difference to the best entry's MAPE with a 95 %
percentile interval (unadjusted; the groups carry the multiple-comparison control).

Everything here is numbers in, numbers out (numpy); the readers of records and the printers live
in :mod:`perfgraphs.leaderboard.records.ranks`.
"""

from __future__ import annotations

import collections
import hashlib
import threading
from dataclasses import dataclass

import numpy as np

RESAMPLES = 4000  # Holm's smallest threshold, 0.05 / (entries - 1), stays above 2 / 4001 up to 50 entries
ALPHA = 0.05
# Below this many test configurations a board lists its entries unranked. Read off the bootstrap
# (benchmarks/rank_resolution.py, results/rank-resolution-dippm-*.md, the four full-strength
# references of 2026-11-28): on the dippm CPU latency board the median 95 % half-width of a paired
# difference to the best entry is 2.2 MAPE points on all 311 configurations, 3.6 on 100, 4.6 on 50
# and 6.0 on 25, and subsamples of 100 reproduce the whole part's groups in 75 % of draws (95 % at
# 150, 15 % at 50; memory: 100 % at 100, 70 % at 25). Under 100 the half-width is larger than most
# gaps between reference entries and the groups are mostly chance.
MIN_RANKED_CONFIGS = 100
_CHUNK = 500  # resamples scored at a time (bounds memory at chunk × seeds × configurations)


class RankingInputError(ValueError):
    """Entries that cannot be compared paired (different test configurations, no scores)."""


@dataclass(frozen=True)
class LabelRepetitions:
    """A board's labels measured more than once: per test configuration (in the contenders' order),
    ``labels`` the value the contenders' ratios are against (the build's label) and ``values`` every
    measurement of it (the label's own one included where it is one of them). A missing or
    non-positive value (a failed round) is no measurement and is dropped."""

    labels: np.ndarray
    values: tuple[np.ndarray, ...]

    def __post_init__(self):
        labels = np.asarray(self.labels, dtype=float).ravel()
        values = tuple(np.asarray([v for v in np.asarray(r, dtype=float).ravel() if np.isfinite(v) and v > 0])
                       for r in self.values)
        if len(labels) != len(values):
            raise RankingInputError(f"{len(labels)} labels for {len(values)} label repetition lists")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "values", values)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def repeated(self) -> np.ndarray:
        """Whether each configuration has two or more measurements (only those carry label noise)."""
        return np.array([len(v) >= 2 for v in self.values], dtype=bool)

    @property
    def counts(self) -> np.ndarray:
        return np.array([len(v) for v in self.values], dtype=int)

    def to_means(self) -> np.ndarray:
        """Per configuration, label / mean of its repetitions (1 where it has fewer than two): a
        ratio against the label times this is the ratio against the mean."""
        out = np.ones(len(self))
        for i, reps in enumerate(self.values):
            if len(reps) >= 2 and np.isfinite(self.labels[i]) and self.labels[i] > 0:
                out[i] = self.labels[i] / reps.mean()
        return out


@dataclass(frozen=True)
class Contender:
    """One entry's per-configuration errors on a board's test configurations, as prediction /
    label per seed: ``ratios`` has shape (seeds, configurations), every row in the same
    configuration order as every other contender's."""

    name: str
    ratios: np.ndarray
    # the ratios as recorded, where ``ratios`` are put on the labels' means (:func:`_on_label_means`):
    # what its copies' key is read from (:func:`_canonical`)
    recorded: np.ndarray | None = None

    def __post_init__(self):
        try:
            r = np.atleast_2d(np.asarray(self.ratios, dtype=float))
        except (TypeError, ValueError):  # ragged seeds, text
            raise RankingInputError(f"{self.name}: ratios must be a (seeds, configurations) array of numbers") from None
        if r.ndim != 2 or 0 in r.shape or not np.isfinite(r).all():
            raise RankingInputError(f"{self.name}: ratios must be a finite (seeds, configurations) array")
        object.__setattr__(self, "ratios", r)

    @property
    def mape_pct(self) -> float:
        """The point estimate: MAPE on the board's labels, averaged over seeds."""
        return float(np.mean(np.abs(self.ratios - 1.0)) * 100.0)


@dataclass(frozen=True)
class Ranked:
    name: str
    rank: int
    mape_pct: float
    mape_ci95: tuple[float, float]  # the entry's own MAPE, percentile interval
    diff_to_best: float  # MAPE points above the best entry (0 for the best)
    diff_ci95: tuple[float, float]  # paired, percentile interval, unadjusted
    better_than: tuple[str, ...]  # entries this one beats beyond the noise (Holm-adjusted)
    # the entry of lower mean whose rank this one takes (its own would be better: fewer entries beat
    # it beyond the noise than beat that one); "" where the rank is its own
    raised_by: str = ""


# Why: a board without label repetitions held its labels fixed, and so does a hidden board, whose labels are
# medians of visits the keeper does not resample; "the labels have no repetitions" (the wording before
# 2026-12-07, in the ranks files signed until then) was wrong there. Readers show the old wording as this one.
UNRESAMPLED_LABELS = "seeds resampled; the labels held fixed, so their measurement noise is not in the intervals"
UNRESAMPLED_LABELS_BEFORE = "seeds resampled; the labels have no repetitions, so label noise is not in the intervals"


@dataclass(frozen=True)
class Ranking:
    entries: tuple[Ranked, ...]  # by rank, then point estimate
    n_configs: int
    resamples: int
    label_noise: bool  # whether label repetitions were resampled (and the labels are their means)
    ranked: bool  # False: too few configurations (or contenders) to rank; ranks are all 1
    reason: str  # why not ranked, or ""

    @property
    def groups(self) -> list[list[Ranked]]:
        out: dict[int, list[Ranked]] = {}
        for e in self.entries:
            out.setdefault(e.rank, []).append(e)
        return [out[r] for r in sorted(out)]

    def summary(self) -> str:
        """One line on what separates the groups."""
        if not self.ranked:
            return f"not ranked: {self.reason}"
        noise = ("seeds and label repetitions resampled; each configuration measured again scored against the "
                 "mean of its measurements" if self.label_noise
                 else UNRESAMPLED_LABELS)
        return (f"{len(self.groups)} rank group(s): entries share a rank unless a paired bootstrap over the "
                f"{self.n_configs} test configurations ({self.resamples} resamples; {noise}) separates them "
                f"(Holm, 5 % per rank); rank = 1 + entries significantly better, never above an entry with "
                f"a lower mean")


def _label_factors(repetitions: LabelRepetitions | None, idx_rng: np.random.Generator, b: int,
                   n: int) -> np.ndarray | None:
    """(b, n) multiplicative label perturbations: mean of drawn repetitions / mean of repetitions.

    The repetitions are drawn with their deviations from their mean scaled by sqrt(k / (k - 1)):
    a plain bootstrap of k values gives their mean a variance of (k - 1) / k × s² / k, half the
    standard error's s² / k at k = 2 (a row measured twice); scaled, it is s² / k at every k."""
    if repetitions is None:
        return None
    factors = np.ones((b, n))
    by_k: dict[int, list[int]] = {}
    for i, reps in enumerate(repetitions.values):
        if len(reps) >= 2:
            by_k.setdefault(len(reps), []).append(i)
    for k, cols in by_k.items():
        reps = np.stack([repetitions.values[i] for i in cols])  # (m, k)
        mean = reps.mean(axis=1, keepdims=True)
        scaled = mean + np.sqrt(k / (k - 1)) * (reps - mean)
        draw = idx_rng.integers(0, k, size=(b, len(cols), k))
        drawn = np.take_along_axis(np.broadcast_to(scaled, (b, *reps.shape)), draw, axis=2).mean(axis=2)
        # a label is positive: a draw of scaled deviations (only rows whose measurements differ
        # several-fold reach zero) stays above a hundredth of the mean
        factors[:, cols] = np.maximum(drawn / mean[:, 0], 0.01)
    return factors


# The draws of a chunk (configuration counts, label factors) are a function of the seed, the chunk, the
# board's size and its label repetitions alone, and every read of a board draws the same ones: the (b, n)
# multinomial and the repetitions' draws were most of a bootstrap, and boards are read again and again
# (every `show`, site and rank of the test suite). Kept up to this many bytes, the oldest dropped first.
_KEPT_DRAWS_BYTES = 64 << 20
_kept_draws: collections.OrderedDict[tuple, tuple[np.ndarray, np.ndarray | None]] = collections.OrderedDict()
_kept_draws_lock = threading.Lock()  # boards may be read from threads (a served site); the draws never change


def _repetitions_key(repetitions: LabelRepetitions | None) -> str:
    """A digest of the label repetitions' content (their draws' only input besides the stream)."""
    if repetitions is None:
        return ""
    h = hashlib.sha256(np.ascontiguousarray(repetitions.labels, dtype="<f8").tobytes())
    for reps in repetitions.values:
        reps = np.ascontiguousarray(reps, dtype="<f8")
        h.update(len(reps).to_bytes(8, "little") + reps.tobytes())
    return h.hexdigest()


def _chunk_draws(seed: int, start: int, b: int, n: int, repetitions: LabelRepetitions | None,
                 key: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(b, n) counts of the test configurations drawn by resamples ``start`` to ``start + b`` (read-only,
    int32) and the label factors their stream draws next (:func:`_label_factors`; None without repetitions)."""
    with _kept_draws_lock:
        kept = _kept_draws.get((seed, start, b, n, key))
        if kept is not None:
            _kept_draws.move_to_end((seed, start, b, n, key))
            return kept
    rng = np.random.default_rng([seed, start, 0])
    # a whole chunk drawn whatever ``b``: the last chunk's rows are the same for any number of resamples
    # past its start (:func:`_seed_counts`), so a board that needs more resamples adds rows, never re-draws
    full = max(b, _CHUNK)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=full).astype(np.int32)[:b]
    factors = _label_factors(repetitions, rng, full, n)
    factors = None if factors is None else factors[:b]
    for array in (counts, factors):
        if array is not None:
            array.flags.writeable = False
    with _kept_draws_lock:
        _kept_draws[(seed, start, b, n, key)] = (counts, factors)
        held = sum(c.nbytes + (0 if f is None else f.nbytes) for c, f in _kept_draws.values())
        while len(_kept_draws) > 1 and held > _KEPT_DRAWS_BYTES:
            c, f = _kept_draws.popitem(last=False)[1]
            held -= c.nbytes + (0 if f is None else f.nbytes)
    return counts, factors


def bootstrap_mapes(contenders: list[Contender], repetitions: LabelRepetitions | None = None,
                    resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """(contenders, resamples) MAPE of every contender on every paired resample (``contenders``'
    ratios against the labels the repetitions re-draw: their means)."""
    return np.array([row for row, _ in _bootstrap(contenders, repetitions, resamples, seed)])


def _bootstrap(contenders: list[Contender], repetitions: LabelRepetitions | None, resamples: int,
               seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each contender's (MAPE on every paired resample with its seeds drawn, (resamples, seeds) MAPE
    of each of its seeds on the same resamples' configurations and labels): the first row gives its
    intervals, the second its comparisons (:func:`seeds_drawn_apart_pvalue`)."""
    n = contenders[0].ratios.shape[1]
    per_seed_out = [np.empty((resamples, c.ratios.shape[0])) for c in contenders]
    seed_shift = np.zeros(len(contenders))
    # An entry's seeds are drawn from a stream keyed on no entry's content (:func:`_seeds_drawn`: the
    # counts go to its seeds in order of their MAPE on each resample, so the order a record lists its
    # seeds in picks nothing: twenty-second pass of 2026-12-02). Keyed on the entry's own ratios to six
    # digits, a change of one ratio in the sixth digit re-rolled its draws: a borderline entry tried 16
    # such changes offline and one ranked it first (ninety-first (ranks) pass), and its interval, which
    # decides whether it is closer to the labels than the truth (records.ranks._without_fitted), could
    # be re-rolled the same way.
    all_ratios = [np.asarray(c.ratios, dtype=float) for c in contenders]
    repetitions_key = _repetitions_key(repetitions)
    # Configurations and label repetitions come from streams keyed on (seed, chunk) only: one shared
    # stream gave each entry draws that depended on its place in the list and on the entries before
    # it, so a record's hand-written date, or a decoy added, re-rolled borderline comparisons
    # (rank 2 -> 1: twenty-first pass of 2026-12-02).
    for start in range(0, resamples, _CHUNK):
        b = min(_CHUNK, resamples - start)
        counts, factors = _chunk_draws(seed, start, b, n, repetitions, repetitions_key)  # shared: paired
        counts = counts.astype(float)
        # A perturbed label y' = y f gives prediction / y' = ratio / f, and |ratio / f - 1| = |ratio - f| / f:
        # the counts over f are the chunk's, shared by every entry.
        weighed = None if factors is None else counts / factors
        for j, ratios in enumerate(all_ratios):
            s = ratios.shape[0]
            # each seed's summed error on each resample: a matrix product where (b, n) arrays of the
            # drawn configurations' errors were five passes an entry (a fifth of the test suite's time)
            per_seed = counts @ np.abs(ratios - 1.0).T  # (b, s)
            if weighed is not None:
                perturbed, errors = np.empty((b, s)), np.empty((b, n))
                for k in range(s):  # seed by seed: a (b, s, n) array took twice as long, same sums
                    np.abs(np.subtract(ratios[k], factors, out=errors), out=errors)
                    perturbed[:, k] = np.einsum("bn,bn->b", errors, weighed)
                if start < RESAMPLES:  # measured on the rows every board draws (_seed_counts)
                    seed_shift[j] += ((perturbed - per_seed).mean(axis=1) / n * 100.0).sum()
                per_seed = perturbed
            per_seed_out[j][start:start + b] = per_seed / n * 100.0
    # A label re-drawn from its repetitions adds error to every entry (the observed label is already
    # one draw): that mean shift, measured on the same draws with and without it, is taken out, so
    # the label noise widens an entry's distribution without moving it. Only that shift: re-centring
    # the whole bootstrap at the point estimates also moved a skewed entry by its Monte Carlo error
    # (two seeds x20: -6.6 points, which put the draws without those seeds below the best entry and
    # tied it with the best: test_ranking, twenty-third pass of 2026-12-02); drawing configurations and
    # seeds is unbiased for the mean MAPE and needs no centring.
    shifted = [per_seed_out[j] - seed_shift[j] / min(resamples, RESAMPLES) for j in range(len(contenders))]
    return [(_seeds_drawn(per, seed, 0), per) for per in shifted]


def holm(pvalues: dict[tuple[int, int], float], alpha: float = ALPHA) -> set[tuple[int, int]]:
    """The pairs Holm's step-down procedure rejects at family-wise error ``alpha``."""
    ordered = sorted(pvalues.items(), key=lambda kv: kv[1])
    rejected: set[tuple[int, int]] = set()
    for j, (pair, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - j):
            break
        rejected.add(pair)
    return rejected


# Two MAPEs within this fraction of the lower are one score: what `reproduce` accepts as the same
# seed scored again (float noise: threads, a library's reduction order; ``reproduce.TOLERANCE_REL``).
SAME_SCORE_REL = 5e-3


def same_score_margin(mape_a: float, mape_b: float) -> float:
    """The smallest difference in MAPE points a rank separates two entries by: :data:`SAME_SCORE_REL`
    of the lower MAPE. The paired test had no minimum effect: a public reference's predictions, each
    ratio moved toward 1 by 1e-5 (not a copy: the 6th digit), differed with one sign in every resample
    and ranked "better beyond the noise" than the reference by 0.0005 points of 12.05 (0.004 %, a
    hundred times under what a rerun of either may move), pushing it and every entry below a rank
    down (seventy-fourth (ranks) pass of 2026-12-06). An equivalence margin: a difference the board
    could not tell from the same entry run again is no rank."""
    return SAME_SCORE_REL * min(mape_a, mape_b)


def _pair_pvalue(d: np.ndarray, margin: float, resamples: int) -> float:
    """Two-sided bootstrap p-value for "the paired MAPE difference ``d`` (resamples) is beyond
    ``margin`` points one way": the smaller share of resamples within the margin of either side."""
    tail = min((d <= margin).sum(), (d >= -margin).sum())
    return min(1.0, 2.0 * (tail + 1) / (resamples + 1))


def _seeds_drawn(per_seed: np.ndarray, seed: int, role: int) -> np.ndarray:
    """(resamples,) an entry's MAPE with its seeds drawn, from its (resamples, seeds) seeds' MAPEs: on
    each resample its seeds, in order of their MAPE there, take the counts of a draw with replacement
    from a stream keyed on the bootstrap's seed, the number of seeds and ``role`` alone
    (:func:`_seed_counts`). The counts are exchangeable, so any order they are given in that does not depend on them draws the seeds alike."""
    b, s = per_seed.shape
    return (np.sort(per_seed, axis=1) * _seed_counts(seed, role, s, b)).sum(axis=1) / s


def _seed_counts(seed: int, role: int, s: int, b: int) -> np.ndarray:
    """(b, s) counts of :func:`_seeds_drawn`'s draws with replacement. Up to :data:`RESAMPLES` rows, from a
    stream keyed on (seed, role, s, b) as before; past them, the first :data:`RESAMPLES` rows are those of
    a board of :data:`RESAMPLES` and each further chunk of :data:`_CHUNK` rows comes from a stream keyed
    on its start, so a board that needs more resamples adds rows and re-draws none. A ranking of more
    than 51 entries draws ``80 × (entries - 1)`` resamples (Holm's smallest threshold, ``paired_ranking``),
    and keyed on that number every entry's seeds were drawn anew by each entry added: 45 entries by 45
    invented people, each worse than every entry before (in no one's Holm family), moved `eve-boost` from
    rank 1 beside `roofline-boost` to rank 2 on the dippm cpu latency board, and each further entry
    re-rolled the borderline comparisons again (ninety-fifth (ranks) pass)."""
    if b <= RESAMPLES:
        return np.random.default_rng([seed, 2, role, s, b]).multinomial(s, np.full(s, 1.0 / s), size=b)
    blocks = [_seed_counts(seed, role, s, RESAMPLES)]
    for start in range(RESAMPLES, b, _CHUNK):
        rng = np.random.default_rng([seed, 3, role, s, start])
        blocks.append(rng.multinomial(s, np.full(s, 1.0 / s), size=_CHUNK)[:min(_CHUNK, b - start)])
    return np.concatenate(blocks)


def seeds_drawn_apart_pvalue(lower: tuple, higher: tuple, margin: float, resamples: int) -> float:
    """:func:`_pair_pvalue` of two entries (``lower`` the one of lower mean), each given as its
    :func:`_bootstrap` rows and its seeds' MAPEs drawn as one of a pair and as the other
    (:func:`_seeds_drawn`: a stream keyed on no entry's content, the two sides independent).
    Drawn from a stream keyed on its own content (the rule before), an entry's seeds were
    drawn anew by any change to one of its ratios in the sixth digit (1e-8 MAPE points): on the dippm
    cpu latency board `eve-boost` (9.45 %, a reference's errors x 0.863), ranked 2 below
    `roofline-boost` (8.45 %), tried 16 such changes offline and one ranked it 1 (ninety-first
    (ranks) pass of 2026-12-06). Now a change of 1e-8 points moves each seed's MAPE by as
    little, and the draws not at all."""
    return _pair_pvalue(lower[2] - higher[3], margin, resamples)


SIGNIFICANT_DIGITS = 6  # two entries whose every ratio agrees to this many digits are copies


def _canonical(ratios: np.ndarray, recorded: np.ndarray | None = None) -> tuple[np.ndarray, tuple[int, ...]]:
    """An entry's (seeds × configurations) ratios with its seeds in one order of their content,
    whatever order the record lists them in, and a key of that content to
    :data:`SIGNIFICANT_DIGITS` digits (four 32-bit words of a sha256 digest): the key of its set of
    copies. Each ratio is read as an integer mantissa and a decimal
    exponent, so -0.0 is 0.0 (two seeds differing only there sorted in the record's order and hashed
    apart: twenty-third pass). ``recorded``: the ratios as recorded, where ``ratios`` are scaled
    (:attr:`Contender.recorded`): the order and key are theirs."""
    ratios = np.asarray(ratios, dtype=float)
    keyed = ratios if recorded is None else np.asarray(recorded, dtype=float)
    magnitude = np.abs(keyed)
    # (a decimal exponent from -300: 10 ** (exponent - digits) stays a normal number for a subnormal ratio)
    exponent = np.where(magnitude > 0, np.floor(np.log10(np.maximum(magnitude, 1e-300))), 0).astype(np.int64)
    mantissa = np.rint(keyed / 10.0 ** (exponent - SIGNIFICANT_DIGITS + 1)).astype(np.int64)
    order = np.lexsort(np.concatenate([mantissa, exponent], axis=1).T[::-1])
    digest = hashlib.sha256(np.ascontiguousarray(mantissa[order], dtype="<i8").tobytes()
                            + np.ascontiguousarray(exponent[order], dtype="<i8").tobytes()
                            + repr(keyed.shape).encode()).digest()
    return ratios[order], tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def _copies(contenders: list[Contender]) -> list[tuple[int, ...]]:
    """For each contender, the key of its set of copies: entries with the same seeds' ratios (in any
    order) to :data:`SIGNIFICANT_DIGITS` digits, which draw their seeds alike and count once. Seed
    means alone made a decoy of another entry's means, each seed far off (49.9 % MAPE), a copy of the
    leader and erased its comparisons (twenty-first pass of 2026-12-02); copies judged to 1e-9 but
    drawn apart let a few-ulp copy re-roll the leader's draws (twenty-third pass)."""
    return [_canonical(c.ratios, c.recorded)[1] for c in contenders]


def _family_of(j: int, point: np.ndarray, pvalues: dict[tuple[int, int], float], copy_of: list[tuple[int, ...]],
               own_copies: bool = False) -> dict[tuple[int, int], float]:
    """Entry ``j``'s Holm family: its comparisons with the entries of lower mean, each set of copies
    (:func:`_copies`) one hypothesis. An entry with another's predictions (a public reference's folder
    submitted again under new names) is one hypothesis, not one more: five copies lifted a borderline
    entry to rank 1 and pushed every other down five (twentieth pass of 2026-12-02). Of a set of
    copies, the one with the smallest p-value stands for them, whichever comes first. Nor is a copy of
    ``j`` in it (``own_copies`` False): copies draw alike, so a rival's copy of a team's predictions,
    each x (1 - 1e-9), differed from them with one sign in every resample (p = 2 / (B + 1)) and
    ranked 1 "better beyond the noise", the team's entry 2, by 1e-7 MAPE points (seventy-third (keys)
    pass of 2026-12-06)."""
    strongest: dict[tuple[int, ...], int] = {}
    for i in range(len(point)):
        if point[i] < point[j] and (own_copies or copy_of[i] != copy_of[j]):
            k = strongest.get(copy_of[i])
            if k is None or pvalues[(min(i, j), max(i, j))] < pvalues[(min(k, j), max(k, j))]:
                strongest[copy_of[i]] = i
    return {(i, j): pvalues[(min(i, j), max(i, j))] for i in strongest.values()}


def _rows_for_families(point: np.ndarray, copy_of: list[tuple[int, ...]], base: int, alpha: float) -> list[int]:
    """Per entry, the resamples its Holm family's comparisons are read on: ``base``, or as many as its
    family's smallest threshold needs (``4 × family / alpha``), the family being the sets of copies of
    lower mean (:func:`_family_of`). The board draws as many as its largest family needs and each entry
    reads the first of them (:func:`_seed_counts`: they are the rows a board of fewer draws), so an
    entry's comparisons depend on the entries of lower mean alone: read on all of them, 45 entries
    worse than every entry before moved `eve-boost` from rank 1 to 2 on the dippm cpu latency board
    (ninety-fifth (ranks) pass)."""
    return [max(base, int(np.ceil(4 * max(1, len({copy_of[i] for i in range(len(point))
                                                    if point[i] < point[j] and copy_of[i] != copy_of[j]})) / alpha)))
            for j in range(len(point))]


def _on_label_means(contenders: list[Contender], repetitions: LabelRepetitions | None
                    ) -> tuple[list[Contender], bool]:
    """(the contenders as scored, whether the labels' noise is drawn): checked to be one board's,
    and where the labels have repetitions, put on their means (one measurement is the noisier label)."""
    if not contenders:
        raise RankingInputError("nothing to rank")
    n = contenders[0].ratios.shape[1]
    if any(c.ratios.shape[1] != n for c in contenders):
        raise RankingInputError("entries scored on different numbers of test configurations cannot be paired: "
                                + ", ".join(f"{c.name} ({c.ratios.shape[1]})" for c in contenders))
    if repetitions is not None and len(repetitions) != n:
        raise RankingInputError(f"{len(repetitions)} label repetition lists for {n} test configurations")
    label_noise = repetitions is not None and bool(repetitions.repeated.any())
    if label_noise:
        to_means = repetitions.to_means()
        # keyed by the ratios as recorded: scaled by the labels' means, a copy of a team's predictions
        # each x (1 - 1e-9) crossed the key's rounding at some configurations, drew apart and counted
        # once more in every family below it (seventy-third (keys) pass of 2026-12-06)
        contenders = [Contender(c.name, c.ratios * to_means[None, :], c.ratios if c.recorded is None else c.recorded)
                      for c in contenders]
    return contenders, label_noise


def _interval(boot_row: np.ndarray) -> tuple[float, float]:
    # a MAPE is ≥ 0: the bootstrap of an entry at the labels' means, less the label shift, crossed it
    # (0.10 [-0.40, 0.64]: nineteenth pass of 2026-12-02)
    return max(0.0, float(np.percentile(boot_row, 2.5))), max(0.0, float(np.percentile(boot_row, 97.5)))


def mape_intervals(contenders: list[Contender], repetitions: LabelRepetitions | None = None,
                   resamples: int = RESAMPLES, seed: int = 0) -> tuple[bool, list[tuple[float, float]], np.ndarray]:
    """(whether the labels' noise is drawn, each contender's own 95 % MAPE interval, the bootstrap
    rows they come from): the ``mape_ci95`` :func:`paired_ranking` gives it with as many
    ``resamples`` (its draws are keyed on its own content, never on the others':
    :func:`bootstrap_mapes`, so a row serves any ranking of it: ``paired_ranking(boot=...)``). One
    bootstrap per entry, where a ranking's pairs cost grows with the cube of the entries (more
    entries, more pairs, more resamples for Holm's thresholds)."""
    contenders, label_noise = _on_label_means(contenders, repetitions)
    boot = _bootstrap(contenders, repetitions if label_noise else None, resamples, seed)
    return label_noise, [_interval(row) for row, _ in boot], boot


def paired_ranking(contenders: list[Contender], repetitions: LabelRepetitions | None = None,
                   resamples: int = RESAMPLES, alpha: float = ALPHA, seed: int = 0,
                   min_configs: int = MIN_RANKED_CONFIGS, boot: list | None = None) -> Ranking:
    """Rank groups of ``contenders`` (see the module's docstring). ``repetitions``: the labels'
    repeated measurements (None where the board has none). ``boot``: the contenders' rows of
    :func:`mape_intervals` with the same repetitions and seed, used where they have as many resamples
    as the ranking needs (each row is its contender's own: the same with or without the others)."""
    contenders, label_noise = _on_label_means(contenders, repetitions)
    n = contenders[0].ratios.shape[1]
    m = len(contenders)
    # Holm's smallest threshold is alpha / (m - 1); a bootstrap p-value cannot go below 2 / (B + 1)
    base, resamples = resamples, max(resamples, int(np.ceil(4 * max(1, m - 1) / alpha)))
    if boot is None or len(boot) != m or any(row.shape != (resamples,) for row, _ in boot):
        boot = _bootstrap(contenders, repetitions if label_noise else None, resamples, seed)
    point = np.array([c.mape_pct for c in contenders])
    best = int(np.argmin(point))
    copy_of = _copies(contenders)
    sides = [(row, per, row, _seeds_drawn(per, seed, 1)) for row, per in boot]  # the row: its seeds drawn as side 0
    rows_for = _rows_for_families(point, copy_of, base, alpha)
    pvalues = {}
    for a in range(m):
        for b in range(a + 1, m):
            lo, hi = (a, b) if (point[a], copy_of[a]) <= (point[b], copy_of[b]) else (b, a)
            # copies draw alike (their difference is their ratios', a few ulp: never a rank, _family_of)
            higher = sides[hi] if copy_of[lo] != copy_of[hi] else (*sides[hi][:3], sides[hi][2])
            k = rows_for[hi]
            pvalues[(a, b)] = seeds_drawn_apart_pvalue(tuple(x[:k] for x in sides[lo]), tuple(x[:k] for x in higher),
                                                       same_score_margin(point[a], point[b]), k)
    # the intervals: each entry's seeds drawn on its own stream, on the rows a board of ``base`` draws
    boot = np.array([row[:base] for row, _ in boot])
    # Each entry's rank is one statement, "these entries are better than it": its family is its
    # comparisons with the entries of lower mean, Holm-adjusted together. (One family over every
    # pair would let entries far below an entry, or near-duplicates added to the board, loosen or
    # tighten its rank.) Noisy entries of lower mean still widen a family: the leaderboard ranks one
    # entry per team (perfgraphs.leaderboard.records.ranks.team_best; twentieth pass of 2026-12-02).
    beats = {j: [] for j in range(m)}  # j -> the entries j beats significantly
    for j in range(m):
        for i, _ in holm(_family_of(j, point, pvalues, copy_of), alpha):
            beats[i].append(j)
    ranked = n >= min_configs
    reason = "" if ranked else f"{n} test configurations, fewer than the {min_configs} a paired ranking needs"
    raw = {j: 1 + sum(j in beats[k] for k in range(m)) for j in range(m)}
    order = sorted(range(m), key=lambda j: (point[j], contenders[j].name))
    # Monotone in the point estimate: an entry whose interval is wide is beaten beyond the noise by
    # fewer entries than a tighter one of lower mean, and takes that entry's rank, never a better one
    # (a wide interval never ranks above a lower mean). So an entry of lower mean, anyone's, can move
    # a wide entry down (twenty-fourth pass of 2026-12-02): the row names it (``raised_by``).
    ranks, raised_by, floor, setter = {}, {}, 1, None
    for j in order:
        if ranked and raw[j] >= floor:
            floor, setter = raw[j], j
        ranks[j] = floor if ranked else 1
        raised_by[j] = contenders[setter].name if ranked and floor > raw[j] else ""
    entries = []
    for j in order:
        diff = boot[j] - boot[best]
        entries.append(Ranked(
            name=contenders[j].name, rank=ranks[j], mape_pct=float(point[j]),
            mape_ci95=_interval(boot[j]),
            diff_to_best=float(point[j] - point[best]),
            diff_ci95=(float(np.percentile(diff, 2.5)), float(np.percentile(diff, 97.5))),
            better_than=tuple(sorted(contenders[k].name for k in beats[j])), raised_by=raised_by[j]))
    return Ranking(tuple(sorted(entries, key=lambda e: (e.rank, e.mape_pct))), n, resamples, label_noise,
                   ranked, reason)
