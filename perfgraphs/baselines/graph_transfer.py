"""A multi-platform graph network for a new platform (issue 34, item 2): one model trained on every
source platform at once, the platform given as its hardware descriptor's numbers (no platform id),
then adapted to the new platform with its K shots, as the HELP / NN-Former line does.

The network reads the operator graph itself:

* **node encoder** — each operator's facts (log of its shapes, kernel, FLOPs, bytes, parameters; its
  operator type) with the mean facts of its predecessors and of its successors (one round of
  message passing in each direction, as SIGN precomputes it), through a two-layer MLP;
* **readout** — the node embeddings summed (latency is roughly additive over operators; log1p of the
  sum) and averaged over the graph;
* **head** — an MLP of the graph embedding with what ``prior-gbm-transfer`` reads of the pair
  (architecture, platform): the roofline prior's make-up on that platform, the platform's descriptor,
  the static features, operator and kernel mix, the family's effect. It predicts log(label / prior):
  the physics is the offset and the network learns what physics misses.

The shots then choose, by leave-one-out, among the adapters of
:class:`~perfgraphs.baselines.physics_transfer.PriorResidualTransfer` (the network as is, a log offset
or affine map of it, its blend with the prior alone, a ridge correction with shots enough): the
per-platform scale of the few-shot step.

Cost on CPU: the node encoder runs on each distinct (operator, context) once per step, not on every
node: the nnlqp timm platforms' 1,656 graphs hold 1.5 M nodes but about 0.13 M distinct ones, so a
fit is tens of seconds on one core, not the hours a message-passing GNN over every node takes.
"""

from __future__ import annotations

import functools

import numpy as np

from perfgraphs.baselines.physics_transfer import PriorResidualTransfer, _terms
from perfgraphs.baselines.transfer import TransferFitError


def _edge_lists(graphs, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source, destination) node numbers over all graphs, each graph's offset by its first node."""
    edges = graphs.column("edge_index").combine_chunks().flatten()  # per graph: [sources, destinations]
    lengths = edges.value_lengths().to_numpy()
    values = edges.flatten().to_numpy()
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    src = [values[starts[2 * i]:starts[2 * i] + lengths[2 * i]] + offsets[i] for i in range(len(offsets))]
    dst = [values[starts[2 * i + 1]:starts[2 * i + 1] + lengths[2 * i + 1]] + offsets[i] for i in range(len(offsets))]
    return np.concatenate(src).astype(np.int64), np.concatenate(dst).astype(np.int64)


class NodeSet:
    """The distinct (operator, predecessors, successors) of a table's graphs, their inputs and how
    many of each every graph holds. Built once per table (memoized with its node costs)."""

    def __init__(self, graphs):
        import scipy.sparse as sp

        from perfgraphs.views.hf import RAW_NODE_FEATURES

        if graphs is None or "edge_index" not in graphs.column_names:
            raise TransferFitError("graph-net-transfer needs the platform table's graphs with their edges "
                                   "(load_platform_table keeps them)")
        num_nodes = graphs.column("num_nodes").to_numpy().astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(num_nodes)[:-1]])
        raw = graphs.column("node_feat").combine_chunks().flatten().flatten().to_numpy(zero_copy_only=False)
        raw = raw.reshape(-1, len(RAW_NODE_FEATURES))
        ops = graphs.column("onnx_ops").combine_chunks().flatten().to_pylist()
        self.op_names = tuple(sorted(set(ops)))
        lookup = {o: i for i, o in enumerate(self.op_names)}
        op_id = np.fromiter((lookup[o] for o in ops), dtype=np.int64, count=len(ops))
        # an operator alone: its integer facts and type
        own, _, own_id = _unique_rows(np.column_stack([raw, op_id]))
        n = len(op_id)
        src, dst = _edge_lists(graphs, offsets)
        # its context: the multiset of its predecessors' and of its successors' kinds, compared by a
        # sum of random 64-bit codes (wrapping), with the counts: equal multisets give equal keys, and
        # two different ones collide with a chance of about 2^-64 per pair
        code = np.random.default_rng(0).integers(1, 2**62, size=len(own), dtype=np.int64).astype(np.uint64)
        ctx_in = np.zeros(n, dtype=np.uint64)
        ctx_out = np.zeros(n, dtype=np.uint64)
        np.add.at(ctx_in, dst, code[own_id[src]])
        np.add.at(ctx_out, src, code[own_id[dst]] * np.uint64(3))
        deg_in, deg_out = np.bincount(dst, minlength=n), np.bincount(src, minlength=n)
        keys = np.column_stack([own_id, ctx_in.view(np.int64), deg_in, ctx_out.view(np.int64), deg_out])
        _, first, inverse = _unique_rows(keys)
        # inputs of each distinct node: its own facts (one row per operator kind: numbers
        # standardized and clipped, its type one-hot), and the mean facts of its predecessors and of
        # its successors as sparse averages over the kinds, so the first layer runs on the kinds
        numbers = np.log1p(np.abs(own[:, :-1].astype(np.float64)))
        mu, sd = numbers.mean(axis=0), numbers.std(axis=0)
        numbers = np.clip((numbers - mu) / np.where(sd > 0, sd, 1.0), -CLIP, CLIP)
        self.kinds = np.column_stack([numbers, np.eye(len(self.op_names))[own[:, -1]]]).astype(np.float32)
        self.kind_of = own_id[first]
        kind_of = sp.csr_matrix((np.ones(n), (np.arange(n), own_id)), shape=(n, len(own)))
        self.mean_in = _row_normalized(sp.csr_matrix((np.ones(len(src)), (dst, src)), shape=(n, n))[first] @ kind_of)
        self.mean_out = _row_normalized(sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))[first] @ kind_of)
        degrees = np.log1p(np.column_stack([deg_in[first], deg_out[first]]).astype(np.float64))
        self.degrees = ((degrees - degrees.mean(axis=0)) / np.maximum(degrees.std(axis=0), 1e-9)).astype(np.float32)
        graph_of_node = np.repeat(np.arange(len(num_nodes)), num_nodes)
        self.counts = sp.csr_matrix((np.ones(n, dtype=np.float32), (graph_of_node, inverse)),
                                    shape=(len(num_nodes), len(first)))
        self.num_nodes = num_nodes

    def tensors(self) -> tuple:
        import torch

        return (torch.from_numpy(self.kinds), torch.from_numpy(self.kind_of.astype(np.int64)), _sparse(self.mean_in),
                _sparse(self.mean_out), torch.from_numpy(self.degrees), _sparse(self.counts),
                torch.from_numpy(self.num_nodes.astype(np.float32)))

    @classmethod
    def of(cls, table) -> "NodeSet":
        if table.costs is None:
            raise TransferFitError("graph-net-transfer needs the platform table's graphs (load_platform_table keeps them)")
        cached = table.costs.memo.get("node_set")
        if cached is None:
            cached = table.costs.memo["node_set"] = cls(table.graphs)
        return cached


CLIP = 6.0  # standardized inputs beyond this many standard deviations are held there


def _row_normalized(matrix):
    import scipy.sparse as sp

    totals = np.asarray(matrix.sum(axis=1)).ravel()
    return (sp.diags(1.0 / np.maximum(totals, 1.0)) @ matrix).tocsr()


def _network(kind_width: int, head_width: int, hidden: int, embed: int, seed: int):
    import torch
    from torch import nn

    torch.manual_seed(seed)

    class GraphNet(nn.Module):
        def __init__(self):
            super().__init__()
            # first layer on [own, mean of predecessors, mean of successors, degrees], split so that
            # each part runs on the operator kinds (linear before the averages)
            self.own = nn.Linear(kind_width, hidden)
            self.pred = nn.Linear(kind_width, hidden, bias=False)
            self.succ = nn.Linear(kind_width, hidden, bias=False)
            self.degree = nn.Linear(2, hidden, bias=False)
            self.node = nn.Sequential(nn.ReLU(), nn.Linear(hidden, embed), nn.ReLU())
            self.head = nn.Sequential(nn.Linear(2 * embed + head_width, hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

        def graphs(self, kinds, kind_of, mean_in, mean_out, degrees, counts, num_nodes):
            product = _sparse_product()
            first = (self.own(kinds)[kind_of] + product(self.pred(kinds), *mean_in)
                     + product(self.succ(kinds), *mean_out) + self.degree(degrees))
            total = product(self.node(first), *counts)
            return torch.cat([torch.log1p(total), total / num_nodes[:, None]], dim=1)

        def forward(self, embedding, rows, head_inputs):
            return self.head(torch.cat([embedding[rows], head_inputs], dim=1)).squeeze(1)

    return GraphNet()


class GraphNetTransfer(PriorResidualTransfer):
    """A graph network of log(label / roofline prior) over every source platform, the platform as its
    descriptor's numbers, adapted with the shots by leave-one-out (see the module)."""

    def __init__(self, hidden: int = 32, embed: int = 16, steps: int = 100, learning_rate: float = 3e-3,
                 weight_decay: float = 1e-4, validation_fraction: float = 0.1, kernel_mix: bool = True,
                 random_state: int = 0):
        super().__init__(kernel_mix=kernel_mix, random_state=random_state)
        self.hidden = hidden
        self.embed = embed
        self.steps = steps
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction

    def _source_model(self, table, p: int):
        import torch

        nodes = NodeSet.of(table)
        xs, ys, rows_of = [], [], []
        for q in self._sources(table, p):
            rows = np.flatnonzero(np.isfinite(table.labels[:, q]))
            if len(rows):
                terms = _terms(table, q)[rows]
                xs.append(self._features(table, rows, q, terms))
                ys.append(np.log(table.labels[rows, q]) - terms[:, 0])
                rows_of.append(rows)
        if not xs:
            raise TransferFitError("no source platform has labels to train on")
        x, y, rows = np.vstack(xs), np.concatenate(ys), np.concatenate(rows_of)
        self.head_mean_, sd = x.mean(axis=0), x.std(axis=0)
        self.head_scale_ = np.where(sd > 0, sd, 1.0)
        # a validation set of whole structure groups, to stop where the sources' unseen architectures do best
        groups = np.asarray(table.groups)[rows]
        names = np.unique(groups)
        rng = np.random.default_rng(self.random_state)
        held = set(rng.choice(names, size=max(1, int(len(names) * self.validation_fraction)), replace=False))
        val = np.array([g in held for g in groups])
        net = _network(nodes.kinds.shape[1], x.shape[1], self.hidden, self.embed, self.random_state)
        self._tensors = nodes.tensors()
        h = torch.from_numpy(self._scaled(x))
        # a queried pair is not extrapolated past the residuals the sources showed (an operator no
        # source graph had, such as a recurrent cell, would otherwise reach any value)
        self.residual_range_ = (float(y.min()), float(y.max()))
        target = torch.from_numpy(y.astype(np.float32))
        r = torch.from_numpy(rows)
        fit, check = torch.from_numpy(~val), torch.from_numpy(val)
        opt = torch.optim.Adam(net.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay)
        best, best_state, self.val_curve_ = np.inf, None, []
        for step in range(self.steps):
            net.train()
            opt.zero_grad()
            pred = net(net.graphs(*self._tensors), r, h)
            loss = torch.mean((pred[fit] - target[fit]) ** 2)
            loss.backward()
            opt.step()
            if step % 10 == 9 or step == self.steps - 1:
                with torch.no_grad():
                    v = float(torch.mean((pred[check] - target[check]) ** 2))
                self.val_curve_.append((step + 1, v))
                if v < best:
                    best, best_state = v, {k: t.detach().clone() for k, t in net.state_dict().items()}
        net.load_state_dict(best_state)
        net.eval()
        with torch.no_grad():
            self.embedding_ = net.graphs(*self._tensors)
        self.best_step_ = min(self.val_curve_, key=lambda s: s[1])[0]
        return net

    def _base(self, table, rows: np.ndarray, p: int, as_q: int | None = None) -> np.ndarray:
        import torch

        q = p if as_q is None else as_q
        terms = _terms(table, q, batch_of=p)[rows]
        x = self._scaled(self._features(table, rows, q, terms))
        with torch.no_grad():
            out = self.model_(self.embedding_, torch.from_numpy(np.asarray(rows, dtype=np.int64)),
                              torch.from_numpy(x)).numpy().astype(np.float64)
        return np.clip(out, *self.residual_range_) + terms[:, 0]

    def _scaled(self, x: np.ndarray) -> np.ndarray:
        return np.clip((x - self.head_mean_) / self.head_scale_, -CLIP, CLIP).astype(np.float32)


def _unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct rows, index of each one's first occurrence, each row's distinct number) of an
    integer matrix, compared as bytes (much faster than ``np.unique(axis=0)``'s lexicographic sort)."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    flat = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    return a[first], first, inverse.ravel()


def _sparse(matrix) -> tuple:
    """A sparse matrix and its transpose as torch CSR tensors, for :func:`_sparse_product`."""
    import torch

    def csr(m):
        m = m.tocsr().astype(np.float32)
        m.sort_indices()
        return torch.sparse_csr_tensor(torch.from_numpy(m.indptr.astype(np.int64)),
                                       torch.from_numpy(m.indices.astype(np.int64)), torch.from_numpy(m.data), m.shape)

    return csr(matrix), csr(matrix.T)


@functools.cache
def _sparse_product():
    """``product(dense, A, A_transposed) = A @ dense`` whose backward pass is ``A_transposed @ grad``
    with the transpose built once: torch's own backward of a sparse product transposes the sparse
    matrix at every step (a step on the nnlqp timm node set: 1.15 -> 0.79 s on this CPU, under load)."""
    import torch

    class SparseProduct(torch.autograd.Function):
        @staticmethod
        def forward(ctx, dense, matrix, transposed):
            ctx.transposed = transposed
            return torch.sparse.mm(matrix, dense)

        @staticmethod
        def backward(ctx, grad):
            return torch.sparse.mm(ctx.transposed, grad), None, None

    return SparseProduct.apply
