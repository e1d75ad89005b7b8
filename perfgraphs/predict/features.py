"""The inputs predictors see, one function per row kind, shared by training and prediction so the
two can never drift apart: graph rows → the ``trappm`` featurizer's static features (what the
leaderboard's static-xgboost reads); encoder-LLM tabular rows → the model + hardware features of
:mod:`perfgraphs.data.llm_features`. Each has a version string an artifact records and
``predict`` checks."""

from __future__ import annotations

import hashlib

from perfgraphs.registry import GRAPH_ROWS, TRAPPM

import numpy as np

GRAPH_FEATURIZER = TRAPPM


def feature_version(kind: str) -> str:
    """The version of the inputs of a row kind: the featurizer id, or a hash of the feature names."""
    if kind == GRAPH_ROWS:
        from perfgraphs.features import get_featurizer

        return get_featurizer(GRAPH_FEATURIZER).id
    from perfgraphs.data.llm_features import encoder_feature_names

    names = ",".join(encoder_feature_names())
    return f"encoder-features-{hashlib.sha256(names.encode()).hexdigest()[:12]}"


def feature_names(kind: str) -> list[str]:
    if kind == GRAPH_ROWS:
        from perfgraphs.features import get_featurizer

        return list(get_featurizer(GRAPH_FEATURIZER).static_feature_names)
    from perfgraphs.data.llm_features import encoder_feature_names

    return encoder_feature_names()


def rows_features(rows, kind: str) -> np.ndarray:
    """Features of a dataset part (a ``datasets.Dataset``)."""
    if kind == GRAPH_ROWS:
        from perfgraphs.data.load import static_features

        return np.asarray(static_features(rows, GRAPH_FEATURIZER), dtype=np.float64)
    from perfgraphs.data.llm_features import encoder_features

    return encoder_features(rows)


def graph_features(graph) -> np.ndarray:
    """(1, d) features of one :class:`PerfGraph`, as :func:`rows_features` computes them for its row."""
    from perfgraphs.features import get_featurizer

    return np.asarray(get_featurizer(GRAPH_FEATURIZER).static_features(graph), dtype=np.float64).reshape(1, -1)


def encoder_row(model: str, batch_size: int, seq_len: int, platform: str, precision: str = "fp32") -> dict:
    """The tabular row (model + hardware facts, no labels) of an encoder LLM the zoo builds, on the
    machine whose hardware probe the platform's store holds — exactly the columns the encoder
    config's rows carry (:mod:`perfgraphs.data.llm_cpu`)."""
    from perfgraphs.data.llm_cpu import hardware_columns, measurements_root, read_probe, weight_bits

    row = _encoder_model_columns(model, seq_len, batch_size)
    row.update(batch_size=batch_size, seq_len_tokens=seq_len, gmacs_per_sequence=row["gmacs_per_forward"] / batch_size,
               weight_bits=weight_bits(precision), **hardware_columns(read_probe(measurements_root(), platform)))
    return row


def _encoder_model_columns(model: str, seq_len: int, batch_size: int) -> dict:
    """The model's own columns (its configuration's facts and the forward's GMACs), cached on disk
    beside the graph exports: computing them builds the model on the meta device, seconds of
    importing transformers, which a cached call must not pay (a cached timm call pays none). The
    key holds the counting libraries' versions, read from package metadata without importing them."""
    import json
    import os
    from dataclasses import asdict

    from perfgraphs.predict.sources import _cache_dir, _versions

    key = hashlib.sha256(repr(("encoder", model, seq_len, batch_size, _versions())).encode()).hexdigest()[:24]
    path = _cache_dir() / f"{key}.encoder.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass  # absent or unreadable: count again
    from perfgraphs.data.llm_cpu import encoder_facts, forward_gmacs

    columns = {**asdict(encoder_facts(model)), "gmacs_per_forward": forward_gmacs(model, seq_len, batch_size)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(columns))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the next call the count
    return columns


def encoder_features_of(row: dict) -> np.ndarray:
    from perfgraphs.data.llm_features import encoder_features

    return encoder_features({k: [v] for k, v in row.items()})
