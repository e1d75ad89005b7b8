"""The GNN baseline of the LLM study (SPEC §4, thesis §6.5.2), against which the LLM tree model
was compared: two GraphSAGE layers (ReLU, dropout 0.05) over the model's operator graph, the
static features (total MACs / params / memory, batch size, sequence length, hardware features)
through FC → H_gnn (ReLU, dropout 0.05), the two concatenated → FC 512 → 1; MSE, Adam lr 1e-3,
mini-batches of 16. Node features follow the thesis's graph construction (operator type,
input/output shapes, MACs, parameters, memory: the ``trappm`` featurizer).

Where it applies: any graph config (``to_pyg`` rows; the nine encoder LLMs of the research graph
through the ``hf:`` source). The ML.ENERGY rows of ``perfgraphs/llm`` are decoder LLMs (Qwen3,
Llama 3/4, DeepSeek, gpt-oss, ...) whose architectures this project cannot graph offline (no
configs shipped), so the runner refuses it there with that reason.

Our choices where the thesis is silent: the node embeddings are sum-pooled (sign·log1p, as the
other graph baselines: graph size matters for cost) before the concatenation; 100 epochs
(quick: 30, hidden 64).
"""

from __future__ import annotations

from perfgraphs.baselines.common import GraphEstimator, resolve, sum_pooled_sage


def _module(node_dim: int, static_dim: int, n_targets: int, hidden: int, fc_hidden: int, dropout: float):
    # two SAGE layers, no normalisation; the static features through FC -> H_gnn; head FC fc_hidden
    return sum_pooled_sage(node_dim, static_dim, n_targets, hidden=hidden, layers=2, dropout=dropout,
                           layer_norm=False, static_width=hidden, fc_hidden=fc_hidden)


class LLMGNN(GraphEstimator):
    """``fit(graphs, y=None)`` / ``predict(graphs)`` (graphs: see :class:`GraphEstimator`); multi-target capable."""

    def __init__(self, hidden_dim: int | None = None, fc_hidden_dim: int | None = None, dropout: float = 0.05,
                 lr: float = 1e-3, epochs: int | None = None, batch_size: int = 16, quick: bool = False,
                 seed: int = 0, log_target: bool = True):
        self.hidden_dim = hidden_dim
        self.fc_hidden_dim = fc_hidden_dim
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.quick = quick
        self.seed = seed
        self.log_target = log_target

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        return _module(node_dim, static_dim, n_targets, resolve(self.hidden_dim, self.quick, 512, 64),
                       resolve(self.fc_hidden_dim, self.quick, 512, 64), self.dropout)
