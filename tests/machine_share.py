"""The parallel suite's one rule (README: ``pytest -n 2``, pytest-xdist), as pytest hooks that
``tests/conftest.py`` takes in."""

from __future__ import annotations

import os

import pytest


# The suite runs on two workers (README: ``pytest -n 2``, pytest-xdist). A test marked ``machine_alone``
# reads machine-wide state between runs (the page and dentry caches a hidden round drops, the kernel's
# counters, the load average, a disk's free blocks, CPU time under interference) in its attack or its
# control, so it runs with no other test running: it takes a lock every other test shares. The gate lets
# a waiting ``machine_alone`` test in before more shared holders (no starvation).
def pytest_configure(config):
    config.addinivalue_line("markers", "machine_alone: run with no other test running (the suite runs in parallel)")


def _machine_locks():
    import tempfile

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return None
    folder = tempfile.gettempdir()
    return tuple(open(os.path.join(folder, f"perfgraphs-pytest-{run}.{what}"), "a+") for what in ("gate", "lock"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    import fcntl

    locks = _machine_locks()
    if locks is None:
        yield
        return
    gate, lock = locks
    try:
        if item.get_closest_marker("machine_alone") is not None:
            fcntl.flock(gate, fcntl.LOCK_EX)
            fcntl.flock(lock, fcntl.LOCK_EX)
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)
            fcntl.flock(lock, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        yield
    finally:
        gate.close()
        lock.close()
