"""Which graphs make up the DIPPM and TraPPM graph sets: families, architectures, sizes, batches.

A graph sample is (architecture, input size, batch size). Structures (architecture × input size)
are taken from one deterministic candidate order per family — every architecture at its native
size first, then the other sizes round-robin — and each structure contributes all of
``BATCH_SIZES`` (the last one of a family only as many as the family's count needs). DIPPM and
TraPPM draw from the same order, so their shared structures are built and stored once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from perfgraphs.registry import DIPPM_COUNTS, TRAPPM_UNLABELED_COUNTS  # noqa: F401  (family counts)

BATCH_SIZES: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)

# Architectures too large to export quickly on a CPU (billions of parameters or multi-k inputs).
_EXCLUDE = re.compile(r"(giant|huge|xxlarge|_7b|_5b|_l2$|x16|x64|gigantic|_enormous|sapiens|_so\d+m|_so400m)")


@dataclass(frozen=True)
class Family:
    name: str
    pattern: str  # regex over timm model names
    sizes: tuple[int, ...]  # extra input sizes after the native one
    transformer: bool = False


_CNN_SIZES = tuple(range(64, 449, 4))
FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("convnext", r"^convnext", _CNN_SIZES),
    Family("densenet", r"^densenet", _CNN_SIZES),
    Family("efficientnet", r"^(tf_)?efficientnet", _CNN_SIZES),
    Family("mnasnet", r"^(mnasnet|semnasnet)", _CNN_SIZES),
    Family("mobilenet", r"^(tf_)?mobilenetv[1234]", _CNN_SIZES),
    Family("poolformer", r"^poolformer", _CNN_SIZES),
    Family("resnet", r"^resnet\d", _CNN_SIZES),
    Family("swin", r"^swin", (256, 192, 288, 320, 384), transformer=True),
    Family("vgg", r"^vgg", _CNN_SIZES),
    Family("visformer", r"^visformer", tuple(range(64, 641, 16)), transformer=True),
    Family("vit", r"^vit_", (256, 192, 288, 320, 384), transformer=True),
)}


@lru_cache(maxsize=None)
def family_archs(family: str) -> tuple[str, ...]:
    import timm

    pattern = re.compile(FAMILIES[family].pattern)
    return tuple(sorted(m for m in timm.list_models() if pattern.match(m) and not _EXCLUDE.search(m)))


def native_size(arch: str) -> int:
    from perfgraphs.graph.zoo import timm_default_image_shape

    return int(timm_default_image_shape(arch)[-1])


def candidates(family: str) -> Iterator[tuple[str, int]]:
    """(timm source, image size) in the family's deterministic order."""
    archs = family_archs(family)
    natives = {a: native_size(a) for a in archs}
    for arch in archs:
        yield f"timm:{arch}", natives[arch]
    for size in FAMILIES[family].sizes:
        for arch in archs:
            if size != natives[arch]:
                yield f"timm:{arch}", size


def structures_needed(count: int) -> int:
    return math.ceil(count / len(BATCH_SIZES))


def batches_for(position: int, count: int) -> tuple[int, ...]:
    """Batch sizes of the family's ``position``-th structure so the family totals ``count``."""
    start = position * len(BATCH_SIZES)
    return BATCH_SIZES[: max(0, min(len(BATCH_SIZES), count - start))]
