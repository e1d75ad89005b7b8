"""One reading of the records asks git each question once (:func:`history.one_reading`); a commit
made between two readings is seen by the next, and nothing is remembered outside a reading."""

import subprocess

from perfgraphs.leaderboard.records import history


def _commit(repo, name: str) -> str:
    (repo / name).write_text(name)
    subprocess.run(["git", "-C", str(repo), "add", name], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name],
                   check=True)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def test_a_reading_asks_once_and_the_next_reading_sees_a_new_commit(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    first = _commit(tmp_path, "a")
    asked = []
    ask = history._ask_git
    monkeypatch.setattr(history, "_ask_git", lambda *a: asked.append(a) or ask(*a))
    with history.one_reading():
        assert history.head_commit(tmp_path) == first
        with history.one_reading():  # nested: the same answers
            assert history.head_commit(tmp_path) == first
        assert len(asked) == 1
        second = _commit(tmp_path, "b")
        assert history.head_commit(tmp_path) == first  # within the reading: its first answer
    assert history.head_commit(tmp_path) == second  # control: outside a reading, git is asked again
    assert history.head_commit(tmp_path) == second and len(asked) == 3
