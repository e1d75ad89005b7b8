"""A fitted predictor as plain numbers: ``{name: numeric array}``, no pickle.

Why: a fit that takes minutes a seed (the graph networks on a CPU) can be run once, kept as its
weights, and predicted from later (the leaderboard's frozen fits: ``perfgraphs submit --freeze`` /
``--frozen``, leaderboard/RULES.md). Its form is the one ``numpy.savez`` writes and
``numpy.load(..., allow_pickle=False)`` reads: every value a numeric array (no object, string or
void dtype), so reading a state never runs code, whoever wrote it. Names are dotted paths
(``module.convs.0.lin_l.weight``, ``static_scaler.mean``); a part's names share its prefix.

The baselines write theirs with ``fitted_state()`` and read it back into a constructed, unfitted
estimator with ``load_fitted_state(state)``; these helpers do the parts they share (a torch
module's ``state_dict``, a ``StandardScaler``).
"""

from __future__ import annotations

import io
import re
import tokenize
import zipfile

import numpy as np

from perfgraphs.errors import PerfgraphsError

NAME = re.compile(r"[A-Za-z0-9_.\-]{1,200}")
MAX_ARRAYS = 10_000


class FittedStateError(PerfgraphsError, ValueError):
    """A state that is not a fitted predictor's numbers, or not this predictor's."""


def check_state(state, what: str = "the state") -> dict[str, np.ndarray]:
    """``state`` as a dict of numeric arrays, or :class:`FittedStateError` saying what is wrong."""
    if not isinstance(state, dict):
        raise FittedStateError(f"{what} must be a dict of name -> numeric array, got {type(state).__name__}")
    if len(state) > MAX_ARRAYS:
        raise FittedStateError(f"{what} has {len(state)} arrays (at most {MAX_ARRAYS})")
    out = {}
    for name, value in state.items():
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise FittedStateError(f"{what}: array name {str(name)[:60]!r} is not 1-200 letters, digits, '_', '.' "
                                   "or '-'")
        if hasattr(value, "detach"):  # a torch tensor
            value = value.detach().cpu().numpy()
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise FittedStateError(f"{what}: {name} has dtype {array.dtype}, not a number (bool, int or float)")
        out[name] = array
    return out


def to_bytes(state: dict[str, np.ndarray]) -> bytes:
    """The state as ``.npz`` bytes (uncompressed: weights do not compress, and the bytes hash as written)."""
    buffer = io.BytesIO()
    np.savez(buffer, **check_state(state))
    return buffer.getvalue()


# zip flag bits of a member Python's zip reader will not open: encrypted (0), compressed patched data (5),
# strong encryption (6); numpy.savez sets none of them
_UNOPENED_FLAGS = 0x1 | 0x20 | 0x40


def _plain_member(info: zipfile.ZipInfo, what: str) -> None:
    """Refuse a member the zip reader would not open, in one line. ``ZipFile.open`` refuses an encrypted
    member with a RuntimeError and a patched or strongly encrypted one with a NotImplementedError, neither
    of which is a bad zip's error: a freezing predictor whose ``numpy.savez`` set the encrypted flag on
    its stored ``.npz`` stopped ``submit --freeze`` with "internal error: RuntimeError" where the
    harness read the state it sent (eighty-eighth pass)."""
    if info.flag_bits & _UNOPENED_FLAGS:
        raise FittedStateError(f"{what}: {info.filename[:60]!r} is encrypted or patched (zip flags "
                               f"{info.flag_bits:#06x}): a state is written as numpy.savez writes it")


def _npy_header(member, what: str) -> tuple[tuple, np.dtype]:
    """The shape and dtype of the ``.npy`` header ``member`` starts with, read by numpy's reader, or
    :class:`FittedStateError`. numpy reads a version 1 or 2 header that is no Python literal again
    through ``tokenize`` and ``ast``, and two of their errors are none numpy turns into its ValueError:
    an unclosed bracket (``tokenize.TokenError``) and a few thousand ``-`` signs before a number (the
    parser's stack, a ``MemoryError``), each of which stopped ``submit --freeze`` with an internal error
    where the harness read the state a predictor sent (eighty-eighth pass)."""
    try:
        version = np.lib.format.read_magic(member)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(member)
    except (tokenize.TokenError, MemoryError) as exc:
        raise FittedStateError(f"{what} has an .npy header numpy does not read ({type(exc).__name__})") from None
    return shape, dtype


def _stored_arrays(data: bytes, what: str) -> None:
    """Refuse an ``.npz`` whose reading would take more memory than its bytes: a compressed member
    (``to_bytes`` writes none; 2 MB of deflated zeros read as 2 GiB in the harness, 256 MB of them
    as hundreds of GiB) or an array header declaring more bytes than the member holds (numpy
    allocates the declared shape first: 8 PiB stopped ``submit --freeze`` with a MemoryError).
    Fifty-second pass."""
    import math

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if len(members) > MAX_ARRAYS:
            raise FittedStateError(f"{what} has {len(members)} arrays (at most {MAX_ARRAYS})")
        for info in members:
            if info.compress_type != zipfile.ZIP_STORED:
                raise FittedStateError(f"{what}: {info.filename[:60]!r} is compressed: a state is written "
                                       "uncompressed (numpy.savez)")
            _plain_member(info, what)
            with archive.open(info) as member:
                shape, dtype = _npy_header(member, f"{what}: {info.filename[:60]!r}")
                if math.prod(shape) * dtype.itemsize > info.file_size:
                    raise FittedStateError(f"{what}: {info.filename[:60]!r} declares {shape} of {dtype}, more than "
                                           f"its {info.file_size} bytes")


def from_bytes(data: bytes, what: str = "the state") -> dict[str, np.ndarray]:
    """``.npz`` bytes back to the state; never unpickles (an object array is refused), never takes
    more memory than its bytes (:func:`_stored_arrays`)."""
    try:
        _stored_arrays(data, what)
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            state = {name: npz[name] for name in npz.files}
    except FittedStateError:
        raise
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise FittedStateError(f"{what} is not an .npz of numeric arrays ({type(exc).__name__}: "
                               f"{' '.join(str(exc).split())[:120]})") from None
    return check_state(state, what)


def part(state: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays under ``prefix.``, their names without it."""
    lead = prefix + "."
    return {k[len(lead):]: v for k, v in state.items() if k.startswith(lead)}


def prefixed(prefix: str, state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {f"{prefix}.{k}": v for k, v in state.items()}


def need(state: dict[str, np.ndarray], name: str) -> np.ndarray:
    if name not in state:
        raise FittedStateError(f"the state has no {name}: it was written by another predictor or version")
    return state[name]


def module_state(module) -> dict[str, np.ndarray]:
    """A torch module's parameters and buffers as float/int arrays."""
    return {k: v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def load_module(module, state: dict[str, np.ndarray]):
    """``module`` with ``state``'s arrays (every one of its names, none more: ``strict``), in eval mode."""
    import torch

    try:
        module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()}, strict=True)
    except RuntimeError as exc:
        raise FittedStateError(f"the state does not fit the module: {' '.join(str(exc).split())[:200]}") from None
    return module.eval()


def scaler_state(scaler) -> dict[str, np.ndarray]:
    """A fitted ``StandardScaler``'s statistics."""
    return {"mean": np.asarray(scaler.mean_, dtype=np.float64), "scale": np.asarray(scaler.scale_, dtype=np.float64),
            "n_samples_seen": np.asarray(scaler.n_samples_seen_)}


def load_scaler(state: dict[str, np.ndarray]):
    """A ``StandardScaler`` fitted to the statistics of :func:`scaler_state` (what ``transform`` and
    ``inverse_transform`` read: ``mean_`` and ``scale_``)."""
    from sklearn.preprocessing import StandardScaler

    mean, scale = np.asarray(need(state, "mean"), np.float64), np.asarray(need(state, "scale"), np.float64)
    if mean.ndim != 1 or mean.shape != scale.shape or not (np.isfinite(mean).all() and (scale > 0).all()):
        raise FittedStateError("the state's scaler statistics are not a fitted StandardScaler's")
    scaler = StandardScaler()
    scaler.mean_, scaler.scale_, scaler.var_ = mean, scale, scale ** 2
    scaler.n_features_in_ = mean.shape[0]
    scaler.n_samples_seen_ = need(state, "n_samples_seen")
    return scaler


def dims(state: dict[str, np.ndarray], name: str, n: int) -> list[int]:
    """``n`` positive integers stored under ``name`` (the sizes a module is rebuilt with)."""
    value = np.asarray(need(state, name))
    if value.shape != (n,) or value.dtype.kind not in "iu" or (value < 1).any():
        raise FittedStateError(f"the state's {name} is not {n} positive integers")
    return [int(v) for v in value]
