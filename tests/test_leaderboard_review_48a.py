"""Forty-eighth adversarial pass (2026-12-05), read side: the keeper's rank groups of a hidden board
(``leaderboard/hidden/ranks/``) are read as the keeper last published them, not as a pull request
puts back an earlier signed version."""

from __future__ import annotations

import json



DATASET, CONFIG, TARGET = "perfgraphs/dippm", "cpu-torch-fp32", "latency_ms"
SET = "ab" * 32  # a hidden set of the test's own organisers' folder
HEAD_OF_SET = "cd" * 32  # the config's next round



def _entry(method: str, authors: str, mape: float, run_identity: str, hidden_set: str = SET):
    from perfgraphs.leaderboard.records.results import Entry

    return Entry(method=method, dataset=DATASET, dataset_version="0.1.0", dataset_content_hash="0" * 64,
                 config=CONFIG, target=TARGET, tier="verified", division="closed", code_commit="1" * 40,
                 per_seed=[{"seed": s, "mape_pct": mape} for s in range(5)], fit_seconds=1.0,
                 predictions_per_second=1.0, num_params=1, hardware="AMD EPYC", run_identity=run_identity,
                 date_utc="2026-12-05T01:10:00+00:00", authors=authors, test_set="hidden",
                 hidden_labels_sha256=hidden_set)


def _ranks(keeper, ranked: list[tuple], computed_at: str, hidden_set: str = SET) -> dict:
    """A ranks file as ``rank-hidden`` writes it, signed by the set's keeper: ``ranked`` (entry, rank)."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import ranks_message, sign

    best = min(e.mean_std("mape_pct")[0] for e, _ in ranked)
    doc = {"about": "rank groups", "dataset": DATASET, "config": CONFIG, "target": TARGET,
           "hidden_labels_sha256": hidden_set, "dataset_content_hash": "0" * 64, "n_configs": 150,
           "resamples": 4000, "ranked": True, "reason": "", "summary": f"{len(ranked)} entries",
           "computed_at_utc": computed_at, "left_out": [],
           "entries": [{"method": e.method, "run_identity": e.run_identity, "record_sha256": record_sha256(e),
                        "rank": rank, "mape_pct": e.mean_std("mape_pct")[0],
                        "mape_ci95": [e.mean_std("mape_pct")[0] - 2, e.mean_std("mape_pct")[0] + 2],
                        "diff_to_best": e.mean_std("mape_pct")[0] - best, "diff_ci95": [0.0, 0.0],
                        "better_than": []} for e, rank in ranked]}
    doc["keeper_signature"] = sign(keeper, ranks_message(doc))
    return doc


def _keyed_set(folder, commit, keeper, hidden_set: str) -> None:
    """The keeper's commitment of ``hidden_set`` and its public key, committed together."""
    from perfgraphs.leaderboard.records.keeper_key import write_public_key

    (folder / "dippm-cpu-torch-fp32.sha256").write_text(f"{hidden_set}  dippm-cpu-torch-fp32.parquet\n")
    write_public_key(keeper, DATASET, CONFIG, hidden_set, folder)
    commit("a keyed hidden round")


def _board(entries):
    from perfgraphs.leaderboard.records.ranks import rank_board
    from perfgraphs.leaderboard.records.sealed_ranks import read_sealed

    board = rank_board(entries, official=True, sealed=read_sealed(DATASET, CONFIG, TARGET, SET))
    return {r.entry.method: (r.ranked.rank if r.ranked else None) for r in board.rows}



def ranked_twice(folder, commit, keeper):
    """A keyed set whose keeper ranked it twice, each committed: first two references (layerwise-boost
    first), then again with a contributor's entry scored later first. Returns the first ranks file,
    its text, and the three entries (reference, other reference, contender)."""
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    reference = _entry("layerwise-boost", "perfgraphs reference baselines", 48.9, "ae2028e42030c933")
    other = _entry("roofline-boost", "perfgraphs reference baselines", 52.4, "facd4c92b01899b4")
    contender = _entry("gnn-contender", "Cy Contender", 40.0, "c0c0c0c0c0c0c0c0")
    first = write_sealed(_ranks(keeper, [(reference, 1), (other, 2)], "2026-12-05T01:40:33+00:00"), folder)
    commit("the keeper's ranks of the round")
    first_text = first.read_text()
    write_sealed(_ranks(keeper, [(contender, 1), (reference, 2), (other, 3)], "2026-12-06T09:00:00+00:00"), folder)
    commit("the keeper ranks again, the contributor's entry with them")
    return first, first_text, (reference, other, contender)

def test_a_pull_request_putting_back_the_rounds_first_ranks_shows_no_stale_rank(git_commitments, tmp_path):
    """Attack: the keeper ranked a round's references (``layerwise-boost`` first alone), a contributor's
    entry was scored on the set later, and the keeper ranked again (the contributor first, the
    reference second) and committed that file. A pull request then puts the round's first ranks file
    back, byte for byte: a version the main line held, signed by the keeper, so ``read_sealed``
    (the file as it is, its signature checked) applied it. The board showed the reference at rank 1
    alone, a rank the keeper no longer published, and the contributor's better entry unranked as
    "scored after the keeper's ranks were computed"."""
    from perfgraphs.leaderboard.records.keeper_key import ranks_message, signature_problem
    from perfgraphs.leaderboard.records.sealed_ranks import ranks_path

    folder, commit = git_commitments
    first, first_text, (reference, other, contender) = ranked_twice(folder, commit, tmp_path / "keeper")
    # control: the keeper's latest ranks, as committed
    assert _board([reference, other, contender]) == {"gnn-contender": 1, "layerwise-boost": 2, "roofline-boost": 3}
    # the setup is valid: the first file is the keeper's, and read alone it ranks the reference first
    path = ranks_path(DATASET, CONFIG, TARGET, folder)
    assert path == first
    path.write_text(first_text)
    put_back = json.loads(first_text)
    assert signature_problem(DATASET, CONFIG, SET, ranks_message(put_back), put_back["keeper_signature"]) is None
    assert {x["method"]: x["rank"] for x in put_back["entries"]} == {"layerwise-boost": 1, "roofline-boost": 2}
    # the attack, in the pull request's checkout and once merged: the keeper's latest ranks still rule
    assert _board([reference, other, contender]) == {"gnn-contender": 1, "layerwise-boost": 2, "roofline-boost": 3}
    commit("restore the ranks file")
    assert _board([reference, other, contender]) == {"gnn-contender": 1, "layerwise-boost": 2, "roofline-boost": 3}


def test_a_rank_file_the_keeper_never_signed_is_still_not_read_from_anywhere(git_commitments, tmp_path):
    """Control of the fix: a version of the file that no keeper signed, however late its date, ranks
    nothing from the main line's history (its versions are read through the same signature check as
    the file itself)."""
    from perfgraphs.leaderboard.records.sealed_ranks import read_sealed, write_sealed

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    reference = _entry("layerwise-boost", "perfgraphs reference baselines", 48.9, "ae2028e42030c933")
    contender = _entry("gnn-contender", "Cy Contender", 40.0, "c0c0c0c0c0c0c0c0")
    doc = _ranks(keeper, [(reference, 1)], "2026-12-05T01:40:33+00:00")
    forged = {**_ranks(keeper, [(contender, 1), (reference, 2)], "2030-01-01T00:00:00+00:00"),
              "keeper_signature": doc["keeper_signature"]}
    write_sealed(forged, folder)
    commit("a file dated later, not signed by the keeper")
    write_sealed(doc, folder)
    commit("the keeper's ranks")
    assert read_sealed(DATASET, CONFIG, TARGET, SET)["computed_at_utc"] == "2026-12-05T01:40:33+00:00"
    assert _board([reference, contender]) == {"layerwise-boost": 1, "gnn-contender": None}


def test_the_next_rounds_ranks_leave_the_earlier_sets_board_ranked(git_commitments, tmp_path):
    """A config's ranks file is one per target (``<set>--<target>.json``), so the next round's ranks
    are written over the earlier set's: that board keeps the ranks its keeper published, from the
    main line's history."""
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    keeper, keeper_next = tmp_path / "keeper", tmp_path / "keeper-next"
    keeper.mkdir()
    keeper_next.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    reference = _entry("layerwise-boost", "perfgraphs reference baselines", 48.9, "ae2028e42030c933")
    other = _entry("roofline-boost", "perfgraphs reference baselines", 52.4, "facd4c92b01899b4")
    write_sealed(_ranks(keeper, [(reference, 1), (other, 2)], "2026-12-05T01:40:33+00:00"), folder)
    commit("the keeper's ranks of the round")
    assert _board([reference, other]) == {"layerwise-boost": 1, "roofline-boost": 2}
    _keyed_set(folder, commit, keeper_next, HEAD_OF_SET)
    nxt = _entry("layerwise-boost", "perfgraphs reference baselines", 30.0, "1111111111111111", HEAD_OF_SET)
    write_sealed(_ranks(keeper_next, [(nxt, 1)], "2026-12-12T01:00:00+00:00", HEAD_OF_SET), folder)
    commit("the next round's ranks")
    assert _board([reference, other]) == {"layerwise-boost": 1, "roofline-boost": 2}


REAL_DEFINITION = "leaderboard/hidden/dippm-cpu-torch-fp32.json"
LIVE = "1ece2037400721f8c61cf52b94cb6093bc3465c0b6ef5f5b599fed0fa448a1e6"
EARLIER = "2ee8d095fa5ae2c9b71c0e2ab5a9a51b6545dce2fabb08d49e88fcd4832b358f"


def _definition_topped_by(path, sha256: str) -> dict:
    """The committed definition as it stood when round ``sha256`` was on top: later rounds (each new
    round goes on top, its predecessor under ``earlier_rounds``) taken off, the rounds before it kept."""
    doc = json.loads(path.read_text())
    rounds = [{k: v for k, v in doc.items() if k != "earlier_rounds"}, *doc.get("earlier_rounds", [])]
    at = next(i for i, r in enumerate(rounds) if r.get("sha256") == sha256)
    return {**rounds[at], "earlier_rounds": rounds[at + 1:]}


def _commitments(tmp_path, commitment: str):
    """A commitments folder holding the repository's definition of dippm cpu-torch-fp32 as it stood on
    the first round of 2026-12-05 (that round on top, the round of 2026-11-29 under ``earlier_rounds``)
    and a commitment of ``commitment``."""
    from pathlib import Path

    folder = tmp_path / "hidden"
    folder.mkdir(parents=True)
    repo = Path(__file__).resolve().parents[1]
    (folder / "dippm-cpu-torch-fp32.json").write_text(json.dumps(_definition_topped_by(repo / REAL_DEFINITION, LIVE)))
    (folder / "dippm-cpu-torch-fp32.sha256").write_text(f"{commitment}  dippm-cpu-torch-fp32.parquet\n")
    return folder


def test_the_earlier_rounds_board_keeps_its_own_noise_floor_whatever_the_commitment_says(tmp_path):
    """Attack: a pull request changes one line, ``leaderboard/hidden/dippm-cpu-torch-fp32.sha256``, to
    the earlier round's hash (``2ee8d095``). ``hidden._round_measured`` took the definition's top
    round for whichever set the commitment named, so the earlier set's board printed the round of
    2026-12-05's noise floor (two visits 5.5 % apart, for its own 16.3 %) and that day's drift of the
    machine (0.62x) as its own, and the live set's board said its floor was not measured."""
    from perfgraphs.leaderboard.records.hidden import hidden_noise_text

    honest = _commitments(tmp_path / "honest", LIVE)
    earlier = hidden_noise_text(DATASET, CONFIG, TARGET, EARLIER, honest)
    live = hidden_noise_text(DATASET, CONFIG, TARGET, LIVE, honest)
    # control: each round's own floor, and the drift on the live round's board alone
    assert "16.3 % MAPE" in earlier and "0.62x" not in earlier
    assert "5.5 % MAPE" in live and "0.62x" in live
    swapped = _commitments(tmp_path / "swapped", EARLIER)
    assert hidden_noise_text(DATASET, CONFIG, TARGET, EARLIER, swapped) == earlier
    assert hidden_noise_text(DATASET, CONFIG, TARGET, LIVE, swapped) == live


def test_a_top_round_that_names_no_set_is_the_commitments(tmp_path):
    """A definition whose current round states no ``sha256`` (written before the rounds named their
    sets): that round is the commitment's, as before; an earlier round that names its set stays that
    set's, whatever the commitment says (the attack above on such a definition)."""
    from perfgraphs.leaderboard.records.hidden import hidden_noise_text

    folder = _commitments(tmp_path, LIVE)
    path = folder / "dippm-cpu-torch-fp32.json"
    doc = json.loads(path.read_text())
    del doc["sha256"]
    path.write_text(json.dumps(doc))
    assert "5.5 % MAPE" in hidden_noise_text(DATASET, CONFIG, TARGET, LIVE, folder)
    assert "16.3 % MAPE" in hidden_noise_text(DATASET, CONFIG, TARGET, EARLIER, folder)
    (folder / "dippm-cpu-torch-fp32.sha256").write_text(f"{EARLIER}  dippm-cpu-torch-fp32.parquet\n")
    assert "16.3 % MAPE" in hidden_noise_text(DATASET, CONFIG, TARGET, EARLIER, folder)  # its round names it
    assert hidden_noise_text(DATASET, CONFIG, TARGET, LIVE, folder) is None


def test_another_targets_ranks_are_not_this_boards(git_commitments, tmp_path):
    """A set's key signs the ranks of each of its targets: the latency ranks written into the memory
    board's file (a copy a pull request can make) are not that board's, and its own committed ranks
    still rank it."""
    from dataclasses import replace

    from perfgraphs.leaderboard.records.ranks import rank_board
    from perfgraphs.leaderboard.records.sealed_ranks import ranks_path, read_sealed, write_sealed

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    latency = _entry("layerwise-boost", "perfgraphs reference baselines", 48.9, "ae2028e42030c933")
    memory = replace(_entry("layerwise-boost", "perfgraphs reference baselines", 16.1, "0123456789abcdef"),
                     target="peak_memory_mb")
    lat_doc = _ranks(keeper, [(latency, 1)], "2026-12-05T02:00:00+00:00")
    mem_doc = {**_ranks(keeper, [(memory, 1)], "2026-12-05T01:40:36+00:00"), "target": "peak_memory_mb"}
    from perfgraphs.leaderboard.records.keeper_key import ranks_message, sign

    mem_doc["keeper_signature"] = sign(keeper, ranks_message(mem_doc))
    write_sealed(lat_doc, folder)
    write_sealed(mem_doc, folder)
    commit("the keeper's ranks, both targets")
    memory_file = ranks_path(DATASET, CONFIG, "peak_memory_mb", folder)
    memory_file.write_text(ranks_path(DATASET, CONFIG, TARGET, folder).read_text())
    sealed = read_sealed(DATASET, CONFIG, "peak_memory_mb", SET)
    assert sealed is not None and sealed["target"] == "peak_memory_mb"
    assert rank_board([memory], official=True, sealed=sealed).rows[0].ranked.rank == 1
