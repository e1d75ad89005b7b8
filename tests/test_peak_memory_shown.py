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
    assert unrecorded.peak_memory_text() == f"{mb} (measured by the harness)"
    assert results.Entry(**{**record, "peak_memory_mb": None}).peak_memory_text() == "not measured"
