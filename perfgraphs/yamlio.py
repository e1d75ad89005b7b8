"""One reader for the YAML files the project ships and generates (collection plans, dataset cards, drawn
plans): PyYAML's safe loader, on libyaml where PyYAML was built with it (``CSafeLoader``: the same documents
about seven times faster, which matters for the 300 KB of committed plans the collectors and the exposure
scan parse again and again), else the pure-Python one. A submission's ``submission.yaml`` is not read here:
it is untrusted input with its own size and depth limits (:mod:`perfgraphs.leaderboard.submission`)."""

from __future__ import annotations

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str):
    """The document ``text`` holds, as ``yaml.safe_load`` reads it; ``yaml.YAMLError`` when it is not YAML."""
    return yaml.load(text, Loader=SAFE_LOADER)
