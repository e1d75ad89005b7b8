"""Input specifications: what a model is fed, per sample and per batch."""

from __future__ import annotations

from dataclasses import dataclass, replace

from perfgraphs.errors import InvalidInputSpecError

MAX_BATCH_SIZE = 1 << 16
MAX_SEQ_LEN = 1 << 16


@dataclass(frozen=True)
class InputSpec:
    """Shape of a model's input. ``image_shape`` is per sample (C, H, W); ``seq_len`` for text."""

    batch_size: int = 1
    image_shape: tuple[int, ...] | None = None
    seq_len: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.batch_size, int) or not 1 <= self.batch_size <= MAX_BATCH_SIZE:
            raise InvalidInputSpecError(
                f"batch size must be an integer in 1..{MAX_BATCH_SIZE}, got {self.batch_size!r}"
            )
        if (self.image_shape is None) == (self.seq_len is None):
            raise InvalidInputSpecError("an input spec needs exactly one of image_shape or seq_len")
        if self.image_shape is not None:
            if not 2 <= len(self.image_shape) <= 4 or any(
                not isinstance(d, int) or d < 1 for d in self.image_shape
            ):
                raise InvalidInputSpecError(
                    f"image shape must be 2 to 4 positive integers (C,H,W), got {self.image_shape!r}"
                )
        if self.seq_len is not None and (
            not isinstance(self.seq_len, int) or not 1 <= self.seq_len <= MAX_SEQ_LEN
        ):
            raise InvalidInputSpecError(
                f"sequence length must be an integer in 1..{MAX_SEQ_LEN}, got {self.seq_len!r}"
            )

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
    if not 2 <= len(shape) <= 4 or any(d < 1 for d in shape):
        raise InvalidInputSpecError(f"input shape must be 2 to 4 positive integers, got {text!r}")
    return shape
