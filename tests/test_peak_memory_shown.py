"""An entry's page says how its peak memory was measured (eighty-ninth pass): a memory cgroup's peak
(every page of the run once) or, without a cgroup, sampled resident sets, which miss a child that lived
between two samples. Read on committed records: the same record is shown each way by its isolation."""
import json

from perfgraphs.leaderboard.records import results
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from perfgraphs.leaderboard.site.pages import _entry_page


def _committed_cgroup_record() -> dict:
    for line in (RESULTS_DIR / "dippm.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("isolation") == "bubblewrap+cgroup+seccomp" and record.get("peak_memory_mb"):
            return record
    raise AssertionError("no committed record ran under a memory cgroup")


def test_the_page_says_whether_a_memory_cgroup_measured_the_peak():
    record = _committed_cgroup_record()
    mb = f"{record['peak_memory_mb']:.0f} MB"
    cgroup = _entry_page(results.Entry(**record), "", "")
    assert f"{mb} (measured by the harness: the memory cgroup&#x27;s peak" in cgroup and "no memory cgroup" not in cgroup
    sampled = _entry_page(results.Entry(**{**record, "isolation": "bubblewrap+seccomp"}), "", "")
    assert f"{mb} (measured by the harness: no memory cgroup: resident sets sampled" in sampled
    unrecorded = results.Entry(**{**record, "isolation": ""})
    assert unrecorded.peak_memory_text().startswith(f"{mb} (measured by the harness);")
    assert results.Entry(**{**record, "peak_memory_mb": None}).peak_memory_text() == "not measured"


def test_a_reproduced_records_run_costs_are_shown_as_its_own_run():
    """reproduce scores predictions again, never timings or memory (reproduce.RUN_FIELDS): a reproduced
    record's page and its board's caption say those are the record's own run (ninety-ninth pass's lead)."""
    from perfgraphs.leaderboard.site.pages import _table

    record = {**_committed_cgroup_record(), "tier": "reproduced"}
    entry = results.Entry(**record)
    assert entry.peak_memory_text().endswith(f"; the record's own run on {record['hardware']}, which reproduce "
                                             "does not measure again")
    assert "which reproduce does not measure again" in _entry_page(entry, "", "")
    assert "never its timings" in _table([entry], "board", "")
    # a tier whose run costs are not the record's own claim (a keeper's verified run) says nothing of it;
    # shown here on a self-reported record, as a public record cannot read as verified (tiers.honest_tier)
    other = results.Entry(**{**record, "tier": "self-reported"})
    assert not other.run_costs_caveat() and "never its timings" not in _table([other], "board", "")
