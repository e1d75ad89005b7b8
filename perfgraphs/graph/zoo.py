"""Model zoo: build real timm / torchvision / transformers models from a name, without weights.

Names: ``timm:<arch>``, ``torchvision:<arch>``, ``hf:<id>``. Weights are never downloaded: timm and
torchvision models are created with ``pretrained=False`` / ``weights=None``; the encoder language
models are built from the configuration files shipped in ``hf_configs/``.

A timm name may carry **structure overrides**, ``+<argument>=<value>`` after the architecture, passed
to ``timm.create_model``: ``timm:resnet26+layers=1x3x4x2``, ``timm:vit_small_patch16_224+depth=7+embed_dim=320+num_heads=5``.
A value is an integer, a decimal number (``mlp_ratio=3.5``), ``true``/``false``, or integers joined by
``x`` (a tuple). Arguments are written in sorted order, so one structure has one name
(:func:`variant_name` writes it). These are the architectures no zoo names, which a hidden test set
draws (:mod:`perfgraphs.collect.variants`).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterator

from perfgraphs.errors import InvalidInputSpecError, UnknownModelError
from perfgraphs.graph.inputs import InputSpec

ZOOS = ("timm", "torchvision", "hf")
HF_DEFAULT_SEQ_LEN = 128


Override = tuple[str, "int | float | bool | tuple[int, ...]"]
_OVERRIDE_KEY = re.compile(r"[a-z_][a-z0-9_]*")


@dataclass(frozen=True)
class ModelName:
    zoo: str
    arch: str
    overrides: tuple[Override, ...] = ()  # timm.create_model arguments, sorted by name


def _override_value(text: str):
    if re.fullmatch(r"\d+(x\d+)+", text):
        return tuple(int(v) for v in text.split("x"))
    if re.fullmatch(r"\d+", text):
        return int(text)
    if re.fullmatch(r"\d+\.\d+", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    raise ValueError(text)


def _override_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "x".join(str(int(v)) for v in value)
    return repr(float(value)) if isinstance(value, float) else str(int(value))


def variant_name(arch: str, overrides: dict) -> str:
    """``timm:<arch>+<key>=<value>...`` with the arguments in sorted order (the one spelling)."""
    return "timm:" + arch + "".join(f"+{k}={_override_text(overrides[k])}" for k in sorted(overrides))


def _parse_overrides(name: str, arch: str, parts: list[str]) -> tuple[Override, ...]:
    overrides = []
    for part in parts:
        key, eq, text = part.partition("=")
        try:
            if not eq or not _OVERRIDE_KEY.fullmatch(key):
                raise ValueError(part)
            overrides.append((key, _override_value(text)))
        except ValueError:
            raise UnknownModelError(
                f"{name!r}: a structure override is +<argument>=<value> with an integer, a decimal, true/false "
                f"or integers joined by x (e.g. +layers=1x3x4x2), got {part!r}") from None
    keys = [k for k, _ in overrides]
    if keys != sorted(set(keys)):
        raise UnknownModelError(f"{name!r}: write each override once, in sorted order: "
                                f"{variant_name(arch, dict(overrides))!r}")
    return tuple(overrides)


def parse_model_name(name: str) -> ModelName:
    zoo, sep, arch = name.partition(":")
    if not sep or zoo not in ZOOS or not arch:
        raise UnknownModelError(
            f"model name must be one of {', '.join(z + ':<arch>' for z in ZOOS)}, got {name!r}"
        )
    overrides: tuple[Override, ...] = ()
    if zoo == "timm":
        arch, *parts = arch.split("+")
        overrides = _parse_overrides(name, arch, parts)
        arch = arch.split(".", 1)[0]  # drop a pretrained tag such as resnet50.a1_in1k
        if not arch:
            raise UnknownModelError(f"{name!r} names no timm architecture before its overrides")
    return ModelName(zoo, arch, overrides)


def is_model_name(text: str) -> bool:
    return text.partition(":")[0] in ZOOS and ":" in text


@contextlib.contextmanager
def skip_weight_init() -> Iterator[None]:
    """Make random weight initialisation a no-op while a model is built.

    The graph does not depend on weight values, and initialising hundreds of millions of random
    numbers costs seconds per model. Buffers computed arithmetically (position indices, masks)
    are unaffected; only in-place random fills are skipped.
    """
    import torch

    _import_init_snapshotters()
    init_names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    tensor_names = ["normal_", "uniform_", "erfinv_", "exponential_", "log_normal_", "cauchy_"]
    saved_init = {n: getattr(torch.nn.init, n) for n in init_names}
    saved_tensor = {n: getattr(torch.Tensor, n) for n in tensor_names}

    def keep(tensor, *args, **kwargs):
        return tensor

    try:
        for n in init_names:
            setattr(torch.nn.init, n, keep)
        for n in tensor_names:
            setattr(torch.Tensor, n, keep)
        yield
    finally:
        for n, f in saved_init.items():
            setattr(torch.nn.init, n, f)
        for n, f in saved_tensor.items():
            setattr(torch.Tensor, n, f)


def _import_init_snapshotters() -> None:
    """Import, before the patch, the modules that copy torch's init functions when first imported.

    transformers keeps its own references to ``torch.nn.init.normal_`` & co. (``transformers.
    initialization``); imported for the first time inside the patch, it would keep the no-ops for
    the rest of the process, and every transformers model made from a config afterwards would
    silently keep PyTorch's default initialisation (embeddings of std 1 instead of 0.02).
    Only a process that has imported transformers can load that module inside the patch (the zoo
    imports transformers before building an hf: model); the others, e.g. every timm worker of a
    campaign, are spared its 0.7 s import.
    """
    if "transformers" in sys.modules:
        import transformers.initialization  # noqa: F401


def _zero_state(module) -> None:
    """Give skipped-init parameters defined values (uninitialised memory may hold NaN/denormals)."""
    import torch

    with torch.no_grad():
        for p in module.parameters():
            p.zero_()


# ---------------------------------------------------------------------------------------------
# timm


def timm_default_image_shape(arch: str) -> tuple[int, ...]:
    import timm

    try:
        cfg = timm.get_pretrained_cfg(arch)
    except Exception:  # timm raises different errors across versions for unknown archs
        cfg = None
    shape = tuple(getattr(cfg, "input_size", None) or (3, 224, 224))
    return shape


@contextlib.contextmanager
def explicit_attention() -> Iterator[None]:
    """Build timm models with their explicit attention path (MatMul, Softmax) instead of
    ``F.scaled_dot_product_attention``: the graph is then the same whatever attention kernels a
    machine has, and models that pass tensors as SDPA flags (rotary ViTs) export at all."""
    import timm.layers.config as timm_config

    saved = timm_config._USE_FUSED_ATTN
    timm_config._USE_FUSED_ATTN = 0
    try:
        yield
    finally:
        timm_config._USE_FUSED_ATTN = saved


def _build_timm(arch: str, image_shape: tuple[int, ...] | None, for_export: bool = True,
                overrides: tuple[Override, ...] = ()):
    import timm

    if not timm.is_model(arch):
        raise UnknownModelError(f"timm has no architecture named {arch!r}")
    default = timm_default_image_shape(arch)
    shape = image_shape or default
    if len(shape) != 3:
        raise InvalidInputSpecError(f"timm models take a 3-d input (C,H,W), got {shape!r}")
    kwargs: dict = {"pretrained": False, **dict(overrides)}
    if shape[0] != 3:
        kwargs["in_chans"] = shape[0]
    attention = explicit_attention() if for_export else contextlib.nullcontext()
    with warnings.catch_warnings(), skip_weight_init(), attention:
        warnings.simplefilter("ignore")
        try:
            if tuple(shape[1:]) != tuple(default[1:]):
                # Transformers with fixed position embeddings / windows must be created for the size.
                try:
                    model = timm.create_model(arch, img_size=tuple(shape[1:]), **kwargs)
                except TypeError:
                    model = timm.create_model(arch, **kwargs)
            else:
                model = timm.create_model(arch, **kwargs)
        except Exception as exc:  # noqa: BLE001 - whatever timm's builder raised on the overrides
            if not overrides:
                raise
            # an override the architecture does not take, or a structure it cannot build
            given = ", ".join(f"{k}={_override_text(v)}" for k, v in overrides)
            raise UnknownModelError(f"timm's {arch} cannot be built with {given}: "
                                    f"{' '.join(str(exc).split())[:200]}") from None
    return model, InputSpec(image_shape=tuple(shape))


# ---------------------------------------------------------------------------------------------
# torchvision

_TORCHVISION_DEFAULT_SIZE = {"inception_v3": 299}


def _build_torchvision(arch: str, image_shape: tuple[int, ...] | None):
    import torchvision

    available = set(torchvision.models.list_models(module=torchvision.models))
    if arch not in available:
        raise UnknownModelError(f"torchvision.models has no classification model named {arch!r}")
    size = _TORCHVISION_DEFAULT_SIZE.get(arch, 224)
    shape = image_shape or (3, size, size)
    if len(shape) != 3:
        raise InvalidInputSpecError(f"torchvision models take a 3-d input (C,H,W), got {shape!r}")
    kwargs = {"weights": None}
    if arch in ("googlenet", "inception_v3"):
        kwargs["aux_logits"] = False
        kwargs["init_weights"] = False
    with warnings.catch_warnings(), skip_weight_init():
        warnings.simplefilter("ignore")
        model = torchvision.models.get_model(arch, **kwargs)
    return model, InputSpec(image_shape=tuple(shape))


# ---------------------------------------------------------------------------------------------
# Hugging Face encoder language models, from shipped configurations


@lru_cache(maxsize=None)
def hf_configs() -> dict[str, dict]:
    """All shipped configurations, keyed by their Hugging Face id."""
    configs = {}
    folder = resources.files("perfgraphs.graph") / "hf_configs"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            cfg = json.loads(entry.read_text())
            configs[cfg["_name_or_path"]] = cfg
    return configs


def resolve_hf_id(model_id: str) -> str:
    configs = hf_configs()
    if model_id in configs:
        return model_id
    by_short = {k.rsplit("/", 1)[-1]: k for k in configs}
    short = model_id.rsplit("/", 1)[-1]
    if short in by_short:
        return by_short[short]
    raise UnknownModelError(
        f"no shipped configuration for hf:{model_id} (available: {', '.join(sorted(configs))})"
    )


def hf_config(model_id: str):
    import transformers

    cfg = dict(hf_configs()[resolve_hf_id(model_id)])
    cfg.pop("_name_or_path")
    model_type = cfg.pop("model_type")
    config = transformers.AutoConfig.for_model(model_type, **cfg)
    # Explicit MatMul/Softmax attention: the same graph whatever SDPA kernels a machine has.
    config._attn_implementation = "eager"
    return config


def check_hf_seq_len(model_id: str, seq_len: int | None) -> int:
    """The sequence length an encoder is exported at (``seq_len``, or the default), refused in one
    line beyond the positions the model has. Reads the shipped configuration only: no import of
    transformers, so a bad argument costs nothing (every shipped configuration names its
    ``max_position_embeddings``)."""
    cfg = hf_configs()[resolve_hf_id(model_id)]
    seq = HF_DEFAULT_SEQ_LEN if seq_len is None else seq_len  # 0 is refused, not replaced
    max_pos = cfg.get("max_position_embeddings")
    if cfg.get("model_type", "") in ("roberta", "xlm-roberta") and max_pos:
        max_pos -= 2  # RoBERTa position ids start after the padding index
    if max_pos and seq > max_pos and cfg.get("position_biased_input", True):
        raise InvalidInputSpecError(
            f"hf:{model_id} accepts at most {max_pos} tokens, got seq_len={seq}"
        )
    return seq


def _build_hf(model_id: str, seq_len: int | None):
    import transformers

    seq = check_hf_seq_len(model_id, seq_len)
    config = hf_config(model_id)
    with warnings.catch_warnings(), skip_weight_init():
        warnings.simplefilter("ignore")
        model = transformers.AutoModel.from_config(config, attn_implementation="eager")
    return _EncoderOutput(model), InputSpec(seq_len=seq)


def _encoder_output_class():
    import torch

    class EncoderOutput(torch.nn.Module):
        """Calls a transformers encoder with keyword inputs and returns its last hidden state,
        so the export sees a plain (input_ids, attention_mask) → tensor function."""

        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    return EncoderOutput


def _EncoderOutput(encoder):
    return _encoder_output_class()(encoder)


def build_model(
    name: str, image_shape: tuple[int, ...] | None = None, seq_len: int | None = None,
    for_export: bool = True,
):
    """Build ``(torch module in eval mode, InputSpec at batch 1)`` for a zoo name.

    ``for_export=False`` builds the model as users run it (timm's fused attention where it has
    one), for measurement; the exported graph always uses the explicit attention path.
    """
    parsed = parse_model_name(name)
    if parsed.zoo == "hf":
        if image_shape is not None:
            raise InvalidInputSpecError("hf: models take --seq-len, not an image shape")
        model, spec = _build_hf(parsed.arch, seq_len)
    else:
        if seq_len is not None:
            raise InvalidInputSpecError(f"{parsed.zoo}: models take an image shape, not --seq-len")
        if parsed.zoo == "timm":
            model, spec = _build_timm(parsed.arch, image_shape, for_export, parsed.overrides)
        else:
            model, spec = _build_torchvision(parsed.arch, image_shape)
    _zero_state(model)
    return model.eval(), spec


def example_inputs(spec: InputSpec) -> dict:
    """Named example tensors for ``spec`` (the names become the ONNX graph's data inputs)."""
    import torch

    if spec.image_shape is not None:
        return {"input": torch.zeros((spec.batch_size, *spec.image_shape))}
    shape = (spec.batch_size, spec.seq_len)
    return {
        "input_ids": torch.ones(shape, dtype=torch.long),
        "attention_mask": torch.ones(shape, dtype=torch.long),
    }


def timm_module_of(arch: str) -> str:
    """The timm module that defines an architecture: its structural family."""
    from timm.models import _registry

    return _registry._model_to_module.get(arch, "unknown")
