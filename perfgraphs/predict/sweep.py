"""The limits and the checks of a batch sweep and side-by-side comparison
(:func:`perfgraphs.predict.api.predict_many`, ``perfgraphs predict --batch 1,8,32 --compare``, the
web form): shared by the three surfaces so that each refuses the same input with the same line."""

from __future__ import annotations

from perfgraphs.errors import InvalidInputSpecError

# Two models side by side and eight batch sizes keep the table readable on one screen and bound
# what one request of the web form costs (a sweep holds the form's one export slot throughout).
MAX_SOURCES = 2
MAX_BATCHES = 8


def parse_batches(text) -> tuple[int, ...]:
    """``"1,8,32"`` / ``8`` / ``(1, 8)`` → the batch sizes, in the order given (not range-checked
    here: :func:`check_sweep` does, with the rest)."""
    if isinstance(text, bool):
        raise InvalidInputSpecError(f"batch must be an integer, got {text!r}")
    if isinstance(text, int):
        return (text,)
    if not isinstance(text, str):
        return tuple(text)
    items = [item.strip() for item in text.split(",")]
    try:
        return tuple(int(item) for item in items)
    except ValueError:
        if len(items) == 1:  # the single-batch wording the form and the CLI have always given
            raise InvalidInputSpecError(f"batch must be an integer, got {text!r}") from None
        raise InvalidInputSpecError(f"batch must be an integer or a comma-separated list of integers such as "
                                    f"1,8,32, got {text!r}") from None


def source_name(source) -> str:
    """A source as :class:`~perfgraphs.predict.result.Prediction` names it (for error messages)."""
    if isinstance(source, str):
        return source
    return "onnx-bytes" if isinstance(source, (bytes, bytearray)) else type(source).__name__


def check_sweep(sources, batches) -> tuple[tuple, tuple[int, ...]]:
    """The sources and batch sizes of a sweep, each a tuple, or a typed one-line error; run before
    any export, so a bad sweep costs nothing."""
    from perfgraphs.graph.inputs import check_ranges

    sources = tuple(sources) if isinstance(sources, (list, tuple)) else (sources,)
    batches = parse_batches(batches)
    if not sources:
        raise InvalidInputSpecError("give a model to predict")
    if len(sources) > MAX_SOURCES:
        raise InvalidInputSpecError(f"compare at most {MAX_SOURCES} models at once, got {len(sources)} "
                                    f"({', '.join(source_name(s) for s in sources)})")
    if len(sources) == 2 and isinstance(sources[0], (str, bytes)) and sources[0] == sources[1]:
        raise InvalidInputSpecError(f"the two models are the same ({source_name(sources[0])}): compare with another")
    if not batches:
        raise InvalidInputSpecError("give at least one batch size")
    if len(batches) > MAX_BATCHES:
        raise InvalidInputSpecError(f"a sweep takes at most {MAX_BATCHES} batch sizes, got {len(batches)}")
    sizes = []
    for b in batches:
        if isinstance(b, bool) or not hasattr(b, "__index__"):  # numpy integers are integers too
            raise InvalidInputSpecError(f"batch must be an integer, got {b!r}")
        sizes.append(b.__index__())
        check_ranges(batch_size=sizes[-1])
    repeated = sorted({b for b in sizes if sizes.count(b) > 1})
    if repeated:
        raise InvalidInputSpecError(f"batch size {', '.join(map(str, repeated))} is given more than once")
    return sources, tuple(sizes)
