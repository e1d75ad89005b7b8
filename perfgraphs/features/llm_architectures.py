"""Architecture facts of the served LLMs, one row per model id in ``llm_architectures.csv``.

Each row holds what a public source states of a checkpoint's shape (layers, widths, heads, experts,
vocabulary), the ``source`` it was read from and ``notes`` saying which fields it names and how a
derived figure was computed. An empty cell is a figure no source read here gives: it stays None,
never a guess, so a row may be partial (README "LLM architecture table" lists which). Adding a
model is adding a row; nothing in the code names one.

The derived quantities are for the serving prior's decode step (the KV cache a token adds) and its
prefill term (the weights a token passes through). They are approximations, stated where computed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

from perfgraphs.errors import PerfgraphsError

ARCHITECTURES_CSV = Path(__file__).with_name("llm_architectures.csv")


class ArchitectureTableError(PerfgraphsError):
    """An architecture table that does not parse (a missing column, a non-number, a duplicate id)."""


@dataclass(frozen=True)
class LLMArchitecture:
    model_id: str
    source: str
    notes: str = ""
    num_layers: int | None = None
    # layers with attention (a KV cache); None: every layer (a hybrid's Mamba layers have none)
    num_attention_layers: int | None = None
    hidden_size: int | None = None
    num_attention_heads: int | None = None
    num_kv_heads: int | None = None
    head_dim: int | None = None
    intermediate_size: int | None = None  # the dense (non-expert) FFN width
    num_experts: int | None = None  # routed experts per MoE layer
    experts_per_token: int | None = None
    num_shared_experts: int | None = None
    moe_intermediate_size: int | None = None  # one expert's FFN width
    num_moe_layers: int | None = None  # None with experts: every layer is MoE
    vocab_size: int | None = None
    tied_embeddings: bool | None = None  # the output projection reuses the input embedding table
    sliding_window: int | None = None  # tokens a sliding-window layer keeps
    num_sliding_window_layers: int | None = None
    kv_lora_rank: int | None = None  # multi-head latent attention: the cached latent's width
    qk_rope_head_dim: int | None = None  # ... and the cached rotary key's width

    @property
    def attention_layers(self) -> int | None:
        return self.num_attention_layers if self.num_attention_layers is not None else self.num_layers

    @property
    def moe_layers(self) -> int:
        if not self.num_experts:
            return 0
        return self.num_moe_layers if self.num_moe_layers is not None else (self.num_layers or 0)

    def kv_cache_bytes_per_token(self, bytes_per_element: float) -> float | None:
        """Bytes of KV cache one token adds while it is within every layer's window: keys and
        values of every attention layer, 2 × attention layers × KV heads × head_dim × bytes; for
        latent attention (MLA) the cached latent plus rotary key, layers × (kv_lora_rank +
        qk_rope_head_dim) × bytes. None where the row lacks a figure it needs."""
        layers = self.attention_layers
        if self.kv_lora_rank is not None:
            if layers is None or self.qk_rope_head_dim is None:
                return None
            return layers * (self.kv_lora_rank + self.qk_rope_head_dim) * bytes_per_element
        if None in (layers, self.num_kv_heads, self.head_dim):
            return None
        return 2 * layers * self.num_kv_heads * self.head_dim * bytes_per_element

    def kv_cache_bytes(self, context_tokens: int, bytes_per_element: float) -> float | None:
        """Bytes of KV cache a sequence of ``context_tokens`` holds: a sliding-window layer keeps
        at most ``sliding_window`` tokens (Gemma 3's local layers, gpt-oss's even layers)."""
        per_token = self.kv_cache_bytes_per_token(bytes_per_element)
        if per_token is None:
            return None
        sliding = self.num_sliding_window_layers or 0
        if not (sliding and self.sliding_window):
            return per_token * context_tokens
        per_layer = per_token / self.attention_layers
        return per_layer * ((self.attention_layers - sliding) * context_tokens
                            + sliding * min(context_tokens, self.sliding_window))

    def approx_params(self) -> float | None:
        """Parameters of the language model, approximately: input embedding + output projection
        (once if tied) + per attention layer the Q, K, V and O projections + per layer a gated FFN
        (3 × hidden × width: dense layers at ``intermediate_size``, MoE layers at
        ``moe_intermediate_size`` for every routed and shared expert, plus the router). Left out:
        norms, biases, attention sinks, a vision or audio encoder, multi-token-prediction heads.
        None for a row missing a figure, for a hybrid (its Mamba layers are not modelled) and for
        latent attention (MLA's low-rank projections are not modelled)."""
        return self._params(active=False)

    def approx_activated_params(self) -> float | None:
        """Parameters one token passes through, approximately: as :meth:`approx_params` with only
        ``experts_per_token`` routed experts (plus the shared ones) per MoE layer and without the
        input embedding table, which a token reads one row of (the output projection counts)."""
        return self._params(active=True)

    def _params(self, active: bool) -> float | None:
        needed = (self.num_layers, self.hidden_size, self.num_attention_heads, self.num_kv_heads,
                  self.head_dim, self.vocab_size, self.tied_embeddings)
        if None in needed or self.kv_lora_rank is not None or self.attention_layers != self.num_layers:
            return None
        h = self.hidden_size
        moe_layers = self.moe_layers
        dense_layers = self.num_layers - moe_layers
        if (dense_layers and self.intermediate_size is None) or (
                moe_layers and None in (self.moe_intermediate_size, self.experts_per_token)):
            return None
        attention = 2 * h * self.head_dim * (self.num_attention_heads + self.num_kv_heads)
        total = self.num_layers * attention + dense_layers * 3 * h * (self.intermediate_size or 0)
        if moe_layers:
            experts = (self.experts_per_token if active else self.num_experts) + (self.num_shared_experts or 0)
            total += moe_layers * (experts * 3 * h * self.moe_intermediate_size + h * self.num_experts)
        table = self.vocab_size * h
        total += table if (self.tied_embeddings or active) else 2 * table
        return float(total)


_TEXT = {"model_id", "source", "notes"}
_FIELDS = {f.name: f for f in fields(LLMArchitecture)}


def _cell(path: Path, n: int, name: str, cell: str):
    if name == "tied_embeddings":
        if cell not in ("true", "false"):
            raise ArchitectureTableError(f"{path.name} line {n}: tied_embeddings {cell!r} is not true or false")
        return cell == "true"
    try:
        value = int(cell)
    except ValueError:
        raise ArchitectureTableError(f"{path.name} line {n}: {name} {cell!r} is not a whole number") from None
    if value <= 0:
        raise ArchitectureTableError(f"{path.name} line {n}: {name} must be positive, not {cell}")
    return value


def read_architectures(path: Path | str = ARCHITECTURES_CSV) -> tuple[LLMArchitecture, ...]:
    path = Path(path)
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = set(reader.fieldnames or ())
    except OSError as exc:
        raise ArchitectureTableError(f"cannot read the architecture table {path}: {exc.strerror}") from None
    missing = [name for name in _FIELDS if name not in header]
    if missing:
        raise ArchitectureTableError(f"{path.name}: no column {', '.join(missing)}")
    out, seen = [], set()
    for n, row in enumerate(rows, start=2):
        model_id = (row["model_id"] or "").strip()
        if not model_id:
            raise ArchitectureTableError(f"{path.name} line {n}: empty model_id")
        if model_id in seen:
            raise ArchitectureTableError(f"{path.name} line {n}: {model_id} named twice")
        seen.add(model_id)
        values = {name: _cell(path, n, name, (row[name] or "").strip())
                  for name in _FIELDS if name not in _TEXT and (row[name] or "").strip()}
        if values and not (row["source"] or "").strip():
            raise ArchitectureTableError(f"{path.name} line {n}: {model_id} gives figures without a source")
        out.append(LLMArchitecture(model_id=model_id, source=(row["source"] or "").strip(),
                                   notes=(row["notes"] or "").strip(), **values))
    return tuple(out)


@lru_cache(maxsize=1)
def _shipped() -> dict[str, LLMArchitecture]:
    return {a.model_id: a for a in read_architectures()}


def architecture_of(model_id: str) -> LLMArchitecture | None:
    """The shipped row of ``model_id`` (a Hugging Face id, as the serving rows name it), or None."""
    return _shipped().get(model_id)
