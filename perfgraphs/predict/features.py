"""The inputs predictors see, one function per row kind, shared by training and prediction so the
two can never drift apart: graph rows → the ``trappm`` featurizer's static features (what the
leaderboard's static-xgboost reads); encoder-LLM tabular rows → the model + hardware features of
:mod:`perfgraphs.data.llm_features`. Each has a version string an artifact records and
``predict`` checks."""

from __future__ import annotations

import hashlib

import numpy as np

GRAPH_FEATURIZER = "trappm"


def feature_version(kind: str) -> str:
    """The version of the inputs of a row kind: the featurizer id, or a hash of the feature names."""
    if kind == "graphs":
        from perfgraphs.features import get_featurizer

        return get_featurizer(GRAPH_FEATURIZER).id
    from perfgraphs.data.llm_features import encoder_feature_names

    names = ",".join(encoder_feature_names())
    return f"encoder-features-{hashlib.sha256(names.encode()).hexdigest()[:12]}"


def feature_names(kind: str) -> list[str]:
    if kind == "graphs":
        from perfgraphs.features import get_featurizer

        return list(get_featurizer(GRAPH_FEATURIZER).static_feature_names)
    from perfgraphs.data.llm_features import encoder_feature_names

    return encoder_feature_names()


def rows_features(rows, kind: str) -> np.ndarray:
    """Features of a dataset part (a ``datasets.Dataset``)."""
    if kind == "graphs":
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
    from dataclasses import asdict

    from perfgraphs.data.llm_cpu import (encoder_facts, forward_gmacs, hardware_columns, measurements_root,
                                         read_probe, weight_bits)

    facts = encoder_facts(model)
    gmacs = forward_gmacs(model, seq_len, batch_size)
    row = {k: v for k, v in asdict(facts).items()}
    row.update(batch_size=batch_size, seq_len_tokens=seq_len, gmacs_per_forward=gmacs,
               gmacs_per_sequence=gmacs / batch_size, weight_bits=weight_bits(precision),
               **hardware_columns(read_probe(measurements_root(), platform)))
    return row


def encoder_features_of(row: dict) -> np.ndarray:
    from perfgraphs.data.llm_features import encoder_features

    return encoder_features({k: [v] for k, v in row.items()})
