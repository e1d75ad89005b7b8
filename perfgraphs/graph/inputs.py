"""Input specifications: what a model is fed, per sample and per batch."""

from __future__ import annotations

from dataclasses import dataclass, replace

from perfgraphs.errors import InvalidInputSpecError

MAX_BATCH_SIZE = 1 << 16
MAX_SEQ_LEN = 1 << 16
MAX_IMAGE_DIM = 1 << 12  # per axis (C, H or W): the export runs one sample of this size through the model


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_ranges(*, batch_size=None, seq_len=None, image_shape=None) -> None:
    """Raise :class:`InvalidInputSpecError` (one line) for an argument out of range; ``None`` is
    not checked. Called before a model is built or exported, so a bad argument costs nothing."""
    if batch_size is not None and not (_is_int(batch_size) and 1 <= batch_size <= MAX_BATCH_SIZE):
        raise InvalidInputSpecError(
            f"batch size must be an integer in 1..{MAX_BATCH_SIZE}, got {batch_size!r}")
    if seq_len is not None and not (_is_int(seq_len) and 1 <= seq_len <= MAX_SEQ_LEN):
        raise InvalidInputSpecError(
            f"sequence length must be an integer in 1..{MAX_SEQ_LEN}, got {seq_len!r}")
    if image_shape is not None and not (
        isinstance(image_shape, (tuple, list)) and 2 <= len(image_shape) <= 4
        and all(_is_int(d) and 1 <= d <= MAX_IMAGE_DIM for d in image_shape)
    ):
        raise InvalidInputSpecError(
            f"image shape must be 2 to 4 integers in 1..{MAX_IMAGE_DIM} (C,H,W), got {image_shape!r}"
        )


@dataclass(frozen=True)
class InputSpec:
    """Shape of a model's input. ``image_shape`` is per sample (C, H, W); ``seq_len`` for text."""

    batch_size: int = 1
    image_shape: tuple[int, ...] | None = None
    seq_len: int | None = None

    def __post_init__(self) -> None:
        if (self.image_shape is None) == (self.seq_len is None):
            raise InvalidInputSpecError("an input spec needs exactly one of image_shape or seq_len")
        check_ranges(batch_size=self.batch_size, seq_len=self.seq_len, image_shape=self.image_shape)

    @property
    def kind(self) -> str:
        return "image" if self.image_shape is not None else "text"

    def with_batch(self, batch_size: int) -> "InputSpec":
        return replace(self, batch_size=batch_size)

    def describe(self) -> str:
        if self.image_shape is not None:
            return f"batch={self.batch_size} input={','.join(map(str, self.image_shape))}"
        return f"batch={self.batch_size} seq_len={self.seq_len}"


def parse_image_shape(text: str) -> tuple[int, ...]:
    """Parse ``"3,224,224"`` (also accepts ``x`` as separator) into a tuple of ints."""
    parts = [p.strip() for p in text.replace("x", ",").split(",") if p.strip()]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise InvalidInputSpecError(
            f"input shape must look like 3,224,224, got {text!r}"
        ) from None
    check_ranges(image_shape=shape)
    return shape
