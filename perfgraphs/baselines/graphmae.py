"""Stage 1 of the GNN + language model baseline: a GIN encoder pre-trained as a masked graph
auto-encoder (GraphMAE, Hou et al. 2022; thesis §7.4.3 and Table 7.7).

Half of the nodes (mask rate 0.5) of every mini-batch are masked: of those, 90 % get their
features replaced by a learnable [MASK] vector and 10 % (replace rate 0.1) by the features of
random other nodes. The GIN encoder (5 layers, hidden 1024, PReLU, BatchNorm) embeds the
corrupted graph; a bias-free linear map and a re-mask (the masked nodes' codes are zeroed) feed
a one-layer GIN decoder that reconstructs the input features; the loss is the scaled cosine
error (1 − cos(x, x̂))^α with α = 2 on the masked nodes only. Adam lr 5e-4, no weight decay,
500 epochs, batch 128. Why: the encoder must learn from structure and neighbours what an
operator is, without any measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _gin(in_dim: int, hidden: int, out_dim: int, layers: int, encoding: bool):
    """GraphMAE's GIN: each layer GINConv(Linear → BN → PReLU → Linear); between layers (and after
    the last one when ``encoding``) BN + PReLU."""
    from torch import nn
    from torch_geometric.nn import GINConv

    class GIN(nn.Module):
        def __init__(self):
            super().__init__()
            dims = [in_dim] + [hidden] * (layers - 1) + [out_dim]
            self.convs = nn.ModuleList()
            self.post = nn.ModuleList()
            for i in range(layers):
                a, b = dims[i], dims[i + 1]
                inner = nn.Sequential(nn.Linear(a, hidden), nn.BatchNorm1d(hidden), nn.PReLU(), nn.Linear(hidden, b))
                self.convs.append(GINConv(inner, train_eps=True))
                last = i == layers - 1
                self.post.append(nn.Sequential(nn.BatchNorm1d(b), nn.PReLU()) if (not last or encoding) else nn.Identity())

        def forward(self, x, edge_index):
            for conv, post in zip(self.convs, self.post):
                x = post(conv(x, edge_index))
            return x

    return GIN()


def sce_loss(x, y, alpha: float):
    """Scaled cosine error: mean over rows of (1 − cos(x_i, y_i))^α."""
    import torch.nn.functional as F

    x, y = F.normalize(x, p=2, dim=-1), F.normalize(y, p=2, dim=-1)
    return (1 - (x * y).sum(dim=-1)).pow(alpha).mean()


def mask_nodes(x, mask_token, mask_rate: float, replace_rate: float, generator):
    """GraphMAE's corruption: ``(corrupted x, indices of masked nodes)``."""
    import torch

    n = x.size(0)
    perm = torch.randperm(n, generator=generator)
    num_mask = max(1, int(mask_rate * n))
    masked = perm[:num_mask]
    out = x.clone()
    num_noise = int(replace_rate * num_mask)
    order = torch.randperm(num_mask, generator=generator)
    token_nodes = masked[order[: num_mask - num_noise]]
    if num_noise:
        noise_nodes = masked[order[num_mask - num_noise:]]
        out[noise_nodes] = x[torch.randperm(n, generator=generator)[:num_noise]]
    out[token_nodes] = 0.0
    out[token_nodes] += mask_token
    return out, masked


@dataclass
class GraphMAE:
    """Encoder + decoder + [MASK] vector; ``pretrain(graphs)`` records ``loss_history``."""

    in_dim: int
    hidden_dim: int = 1024
    num_layers: int = 5
    mask_rate: float = 0.5
    replace_rate: float = 0.1
    alpha: float = 2.0
    lr: float = 5e-4
    weight_decay: float = 0.0
    epochs: int = 500
    batch_size: int = 128
    loss_history: list[float] = field(default_factory=list)

    def __post_init__(self):
        import torch
        from torch import nn

        self.encoder = _gin(self.in_dim, self.hidden_dim, self.hidden_dim, self.num_layers, encoding=True)
        self.encoder_to_decoder = nn.Linear(self.hidden_dim, self.hidden_dim, bias=False)
        self.decoder = _gin(self.hidden_dim, self.hidden_dim, self.in_dim, 1, encoding=False)
        self.mask_token = nn.Parameter(torch.zeros(1, self.in_dim))

    def parameters(self):
        yield from self.encoder.parameters()
        yield from self.encoder_to_decoder.parameters()
        yield from self.decoder.parameters()
        yield self.mask_token

    def loss(self, x, edge_index, generator):
        corrupted, masked = mask_nodes(x, self.mask_token, self.mask_rate, self.replace_rate, generator)
        code = self.encoder_to_decoder(self.encoder(corrupted, edge_index))
        code = code.clone()
        code[masked] = 0.0  # re-mask: the decoder must infer masked nodes from their neighbours
        return sce_loss(self.decoder(code, edge_index)[masked], x[masked], self.alpha)

    def pretrain(self, graphs: list, seed: int) -> list[float]:
        """Mini-batch Adam over ``graphs`` (PyG ``Data`` with float ``x``). Masks and shuffling draw
        from their own ``seed``-ed generator; construct the object inside
        :func:`perfgraphs.baselines.common.torch_seeded` so the weight init is reproducible too."""
        import torch
        from torch_geometric.loader import DataLoader

        gen = torch.Generator().manual_seed(seed)
        loader = DataLoader(graphs, batch_size=self.batch_size, shuffle=True, generator=gen)
        opt = torch.optim.Adam(list(self.parameters()), lr=self.lr, weight_decay=self.weight_decay)
        for module in (self.encoder, self.encoder_to_decoder, self.decoder):
            module.train()
        for _ in range(self.epochs):
            total, count = 0.0, 0
            for batch in loader:
                opt.zero_grad()
                value = self.loss(batch.x, batch.edge_index, gen)
                value.backward()
                opt.step()
                total, count = total + float(value.detach()) * batch.num_graphs, count + batch.num_graphs
            self.loss_history.append(total / max(count, 1))
        for module in (self.encoder, self.encoder_to_decoder, self.decoder):
            module.eval()
        return self.loss_history
