"""Which network a timm name builds, compared without exporting a graph.

A structure variant (``timm:resnet50+layers=2x2x2x2``) can be a named architecture under another
spelling (timm's ``resnet26``), and a named architecture has public measurements wherever a
source lists it. :func:`architecture_structure` builds the model on the meta device (no memory,
no weight initialisation: about 0.1 s a model) and hashes what PyTorch prints of it (every module's
class and arguments, ``extra_repr``: kernel, stride, groups, epsilon, activation) together with
every parameter's and buffer's name and shape (``pos_embed``, ``cls_token``: parameters no
``repr`` shows). Two names with one fingerprint build one network; the input size is not part of
it (a model's size is measured at several). The fingerprint belongs to the installed timm and
torch: compare fingerprints made in one environment, never stored ones.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Structure:
    fingerprint: str  # sha256 of the module tree and the parameter and buffer shapes
    num_params: int


@lru_cache(maxsize=8192)
def architecture_structure(name: str) -> Structure | None:
    """The :class:`Structure` of a timm name (``timm:`` optional, overrides allowed); None for another
    zoo's name, or one the installed timm does not have or cannot build."""
    import torch

    from perfgraphs.errors import UnknownModelError
    from perfgraphs.graph.zoo import parse_model_name, skip_weight_init

    try:
        parsed = parse_model_name(name if ":" in name else f"timm:{name}")
    except UnknownModelError:
        return None
    if parsed.zoo != "timm":
        return None
    import timm

    if not timm.is_model(parsed.arch):
        return None
    try:
        with warnings.catch_warnings(), skip_weight_init(), torch.device("meta"):
            warnings.simplefilter("ignore")
            model = timm.create_model(parsed.arch, pretrained=False, **dict(parsed.overrides))
    except Exception:  # noqa: BLE001 - an override the builder does not take: no such network
        return None
    shapes = [(n, tuple(p.shape)) for n, p in model.named_parameters()]
    shapes += [(n, tuple(b.shape)) for n, b in model.named_buffers()]
    text = f"{model!r}\n{shapes!r}"
    return Structure(hashlib.sha256(text.encode()).hexdigest(),
                     sum(p.numel() for p in model.parameters()))
