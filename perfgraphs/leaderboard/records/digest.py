"""One digest of a leaderboard record as scored: what a hidden board's kept scores and published
ranks name, and what the hidden set's keeper signs (a module of its own: the records' readers and
their checks both need it)."""

from __future__ import annotations

import hashlib
import json

# What a kept score and a published rank are bound to: the whole record as scored (a copy of a
# ranked record under other authors, another commit or division, or with other per-seed numbers,
# is another record), less its tier (read from evidence, never from the record) and the keeper's
# signature over it.
DIGEST_FIELDS = ("method", "dataset", "dataset_version", "dataset_content_hash", "config", "target", "division",
                 "code_commit", "per_seed", "fit_seconds", "predictions_per_second", "num_params", "hardware",
                 "run_identity", "date_utc", "authors", "test_set", "hidden_labels_sha256", "code_url", "paper",
                 "external_data", "hyperparameters", "peak_memory_mb", "isolation", "protocol", "fit_cpu_seconds",
                 "cores")
LATER_FIELDS = ("frozen_fit",)


def record_sha256(entry) -> str:
    """The record as scored, as one digest (a hidden board's kept scores and published ranks name
    it, its keeper signs it); a records.results.Entry or the record as stored (a dict)."""
    doc = {k: (entry.get(k) if isinstance(entry, dict) else getattr(entry, k, None)) for k in DIGEST_FIELDS}
    # fields added later count only where set: the digests of the records before them stay as signed
    for k in LATER_FIELDS:
        value = entry.get(k) if isinstance(entry, dict) else getattr(entry, k, None)
        if value:
            doc[k] = value
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()
