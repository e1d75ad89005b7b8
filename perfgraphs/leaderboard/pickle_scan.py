"""What the pickles a submission ships would run when loaded: each global a shipped pickle names,
checked against the classes and functions of the libraries a predictor's weights are made of.

Unpickling calls whatever the bytes name (``pickle``, ``joblib``, ``torch.load(weights_only=False)``,
``np.load(allow_pickle=True)``), so a ``prior.pkl`` beside a predictor that read as a median ran
``exec`` of a line no source holds (the fortieth adversarial pass's lead, 2026-12-04): code a review
of the ``.py`` files never sees. This scan reads the opcodes (``pickletools``), never loads: the
globals a pickle names must be, as torch's ``weights_only`` unpickler and Python's "restricting
globals" recipe allow,

- containers and reconstructors (``builtins.set``, ``collections.OrderedDict``,
  ``copyreg._reconstructor``, ``_codecs.encode``, numpy's ``_reconstruct``/``scalar``/``dtype``,
  its random generators' constructors, Cython's ``__pyx_unpickle_*`` of the libraries below);
- classes of numpy, scikit-learn, SciPy, XGBoost or LightGBM, and numpy's ufuncs (``np.log`` in a
  ``TransformedTargetRegressor``), scikit-learn's score functions (``sklearn.metrics``,
  ``sklearn.feature_selection``);
- torch's ``weights_only`` allow-list for anything of torch (a ``torch.save`` state dict);
- a class the submission's own source defines at the top level of a module (code the review reads).

Anything else (``os.system``, ``builtins.exec``, ``builtins.getattr``, a function of numpy such as
``load``, a name reached through a module attribute) refuses the folder in one line naming it. Where
pickles are looked for: every regular file of the folder that is one (or several back to back) as a
whole, the members of zip and tar archives (``torch.save``, ``.npz``, ``pandas.read_pickle``), every
gzip/bz2/xz/zlib stream (``joblib``'s compression; zlib and LZMA-alone of any settings), zstd/lz4
frames, and object arrays in ``.npy`` files. A pickle
hidden otherwise (at an offset, encoded, encrypted) is found by the review only: the code that loads
it is source (RULES.md, rule 3).
"""

from __future__ import annotations

import ast
import bz2
import contextlib
import importlib
import io
import lzma
import os
import pickle
import pickletools
import zipfile
from struct import error as struct_error
from struct import unpack as struct_unpack
import zlib
from pathlib import Path

# the libraries whose classes a fitted model is made of (their class constructors and __setstate__
# rebuild data; none of them runs a string as code)
CLASS_PACKAGES = ("numpy", "sklearn", "scipy", "xgboost", "lightgbm")  # but STATE_RUNS_CODE
# modules whose functions are score or math functions an estimator holds as a parameter
FUNCTION_MODULES = ("sklearn.metrics", "sklearn.feature_selection")
# (module, name) pairs a pickle of plain containers and numpy arrays names
RECONSTRUCTORS = frozenset({
    ("builtins", n) for n in ("set", "frozenset", "dict", "list", "tuple", "bytearray", "bytes", "complex",
                              "slice", "range", "int", "float", "str", "bool", "object")
} | {
    ("copyreg", "_reconstructor"), ("copyreg", "__newobj__"), ("copyreg", "__newobj_ex__"),
    ("_codecs", "encode"), ("codecs", "encode"),
    ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "deque"),
    ("collections", "Counter"),
} | {
    (m, n) for m in ("numpy.core.multiarray", "numpy._core.multiarray") for n in ("_reconstruct", "scalar")
} | {
    (m, "_frombuffer") for m in ("numpy.core.numeric", "numpy._core.numeric")  # protocol 5's arrays
} | {
    ("numpy.random._pickle", n) for n in ("__randomstate_ctor", "__bit_generator_ctor", "__generator_ctor")
})
MAX_DECOMPRESSED_BYTES = 512 * 1024**2  # a compressed file larger than this unpacked is refused unread
MAX_NESTING = 4  # archives inside compressed files inside archives


class _Unreadable(Exception):
    """A pickle the scan cannot follow (a global whose name it cannot tell)."""


def _stack_global_names(ops: list, at: int, memo: dict) -> tuple[str, str]:
    """The (module, name) a STACK_GLOBAL at ``ops[at]`` takes: the two stack-changing opcodes before
    it must push strings (directly or from the memo), as every pickler writes them; otherwise the
    scan cannot tell what it names, and says so."""
    found: list[str] = []
    i = at - 1
    while i >= 0 and len(found) < 2:
        op, arg = ops[i]
        i -= 1
        if op in _MEMO_WRITES or op == "FRAME":
            continue
        if op in _STRING_PUSHES:
            found.append(arg)
        elif op in _MEMO_READS and isinstance(memo.get(arg), str):
            found.append(memo[arg])
        else:
            raise _Unreadable("a STACK_GLOBAL whose module and name are not strings written before it")
    if len(found) < 2:
        raise _Unreadable("a STACK_GLOBAL with fewer than two strings before it")
    return found[1], found[0]


_STRING_PUSHES = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING", "BINSTRING",
                  "SHORT_BINSTRING"}
_MEMO_WRITES = {"MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"}
_MEMO_READS = {"GET", "BINGET", "LONG_BINGET"}


def named_globals(data: bytes) -> tuple[list[tuple[str, str]], int]:
    """The (module, name) pairs the pickle at the start of ``data`` names, as the unpickler looks
    them up (renamed by :func:`_as_python3` where the protocol at the lookup is below 3), and where
    it ends. Raises ValueError (pickletools') where ``data`` is no whole pickle,
    :class:`_Unreadable` where a global's name cannot be told from the opcodes."""
    ops: list = []
    names: list[tuple[str, str]] = []
    memo: dict = {}
    end = 0
    last = None  # the value the last stack-changing opcode pushed, where it is a string
    proto = 0  # the unpickler's at each lookup: 0 without a PROTO opcode, else the last one read
    for opcode, arg, pos in pickletools.genops(io.BytesIO(data)):
        op = opcode.name
        if op in ("GLOBAL", "INST"):
            module, _, name = str(arg).partition(" ")
            names.append(_as_python3(module, name) if proto < 3 else (module, name))
        elif op == "STACK_GLOBAL":  # protocol 4+'s opcode, yet a PROTO 2 written before it counts
            module, name = _stack_global_names(ops, len(ops), memo)
            names.append(_as_python3(module, name) if proto < 3 else (module, name))
        elif op == "PROTO":
            proto = arg
        elif op in ("EXT1", "EXT2", "EXT4"):
            raise _Unreadable(f"an extension-registry global ({op}), which names nothing the scan can read")
        if op == "MEMOIZE":
            memo[len(memo)] = last
        elif op in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = last
        elif op in _STRING_PUSHES:
            last = arg
        elif op in _MEMO_READS:
            last = memo.get(arg)
        elif op != "FRAME":
            last = None
        ops.append((op, arg))
        end = pos + 1
    return names, end


def _as_python3(module: str, name: str) -> tuple[str, str]:
    """The global an unpickler looks up for ``module``/``name``: a protocol 0-2 pickle names Python
    2's modules (``copy_reg``, ``__builtin__``), which it renames as :mod:`_compat_pickle` says. A
    protocol 3+ pickle is not renamed: its ``copy_reg._reconstructor`` read as the allowed
    ``copyreg._reconstructor`` while the unpickler imported a shipped ``copy_reg.py`` holding
    ``_reconstructor = exec`` and called that (forty-second pass)."""
    import _compat_pickle

    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _pickles_in(data: bytes) -> list[tuple[str, str]] | None:
    """The globals of the pickle(s) ``data`` is, back to back; None where it is not one. A file
    starting with a protocol-2+ header that does not parse is refused (:class:`_Unreadable`): the
    unpickler may read what the scan does not."""
    if not data:
        return None
    names: list[tuple[str, str]] = []
    offset = 0
    while offset < len(data):
        try:
            found, end = named_globals(data[offset:])
        except _Unreadable:
            if offset == 0 and not _parses_whole(data):
                # no pickle at all, bytes that start with an EXT or STACK_GLOBAL opcode (a tensor's
                # storage in a torch.save archive: resnet18's and vit_tiny's state dicts, and one
                # nn.Linear(4, 2) in 30, were refused as unreadable pickles): the unpickler decides,
                # and it stops at such bytes before looking anything up unless they name a module
                _unpickler_names_nothing(data)
                return None
            raise
        except Exception as exc:  # noqa: BLE001 - pickletools' ValueError, or any other reading failure
            if offset == 0 and data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
                if b"NumpyArrayWrapper" in data[:1 << 16]:  # joblib writes arrays' bytes between opcodes
                    raise _Unreadable("a joblib file holding arrays, whose bytes sit between the pickle's opcodes: "
                                      "save it with pickle.dump, which holds the same arrays") from None
                raise _Unreadable(f"a pickle header whose opcodes do not parse ({exc})") from None
            _unpickler_names_nothing(data[offset:])
            return names if offset else None
        names += found
        offset += end
    return names


def _parses_whole(data: bytes) -> bool:
    """Whether ``pickletools`` reads a whole pickle (to its STOP) at the start of ``data``."""
    try:
        for _ in pickletools.genops(io.BytesIO(data)):
            pass
    except Exception:  # noqa: BLE001 - pickletools' ValueError, or any other reading failure
        return False
    return True


class _Names(Exception):
    """The unpickler's first global lookup, stopped before anything is imported or called."""


class _Probe(pickle.Unpickler):
    """Python's own unpickler, stopped at the first global it would look up (``find_class``, which
    extension codes and every GLOBAL/INST/STACK_GLOBAL go through): until then its stack holds only
    strings, numbers, containers and None for a persistent id (``pickle.load`` refuses one, torch's
    loader makes a storage of it), so nothing it holds can be called."""

    def find_class(self, module, name):
        raise _Names(module, name)

    def persistent_load(self, pid):
        return None  # read on to a global after it (a text file starting with "P" is read so too)


def _unpickler_names_nothing(data: bytes) -> None:
    """Raises :class:`_Unreadable` where Python's unpickler, loading ``data``, would look up a
    global that names a module and a name although ``pickletools`` (the scan's reader) stopped
    earlier on it. The two read some arguments differently: the unpickler reads ``I0x10`` as an
    integer (base 0), pickletools refuses it, and a ``prior.pkl`` starting with that line was "no
    pickle" to the scan while loading it called ``builtins.exec`` (forty-second pass). A lookup of
    what is no module (text that merely starts like a pickle) fails in the unpickler as well."""
    try:
        _Probe(io.BytesIO(data)).load()
    except _Names as found:
        if _names_a_module(found):
            module, name = (str(a) for a in found.args)
            raise _Unreadable(f"a pickle whose opcodes the scan's reader does not parse, naming "
                              f"{module[:80]}.{name[:80]}") from None
    except Exception:  # noqa: BLE001 - the unpickler stops too before any global: nothing it could call
        pass


def _names_a_module(found: _Names) -> bool:
    """Whether the probe's stopped lookup names a module and a name (dotted identifiers): any other
    text (``lass Foo:`` read from source starting ``class Foo:``) fails in the unpickler as well."""
    module, name = (str(a) for a in found.args)
    return all(part.isidentifier() for part in (*module.split("."), *name.split(".")))


def _source_unpickles(data: bytes) -> bool:
    """Whether a ``.py`` file's bytes, loaded as one pickle or several back to back from their start
    (``pickle.load`` called again on the same file), make Python's unpickler look up a global. Such
    a file is also scanned as a pickle: the source checks read it as Python, yet a protocol-1 string
    whose length byte is a quote (``U'``) opens a triple-quoted docstring to Python, and a
    ``prior.py`` whose "docstring" held a pickle calling ``builtins.exec`` passed every check while
    ``pickle.loads(Path("prior.py").read_bytes())`` ran it (forty-third pass). Honest source stops
    the unpickler before any lookup (``import`` needs a mark) or at text that names no module."""
    stream = io.BytesIO(data)
    while stream.tell() < len(data):
        try:
            _Probe(stream).load()
        except _Names as found:
            return _names_a_module(found)
        except Exception:  # noqa: BLE001 - no pickle (further on): nothing the unpickler could call
            return False
    return False


_STREAM_ERRORS = (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError)
CHUNK = 8192  # compressed bytes fed at a time: a reader has what came before a break in the stream


def _streams(make, data: bytes, lenient: bool = False) -> bytes:
    """What a reader (``gzip.open``, ``bz2.open``, ``lzma.open``, joblib's) gets from ``data``: every
    stream back to back, not the first only, as far as it decompresses. A gzip of nothing followed by
    a gzip of a pickle naming ``builtins.exec`` was an empty file to the scan (a decompressor stops at
    its stream's end) while ``pickle.load(gzip.open(...))`` read the second and ran it; a stream that
    breaks off after its pickle's code (a corrupt byte far behind it) lost all its output to the
    error and was "no stream" (forty-second pass). Raises the decompressor's error where the first
    stream yields nothing (not that kind of stream), :class:`_Unreadable` where one breaks off after
    yielding something (with ``lenient``, where the format was guessed from no magic, returns what
    came before the break) or everything is larger than :data:`MAX_DECOMPRESSED_BYTES`."""
    out = bytearray()
    rest = data
    while rest:
        decompressor, at = make(), 0
        while not decompressor.eof and at < len(rest):
            try:
                out += decompressor.decompress(rest[at:at + CHUNK], MAX_DECOMPRESSED_BYTES + 1 - len(out))
            except _STREAM_ERRORS as exc:
                if not out:
                    raise
                if lenient:  # a guessed format: what decoded before the error is read, not refused
                    return bytes(out)
                raise _Unreadable(f"a compressed stream that breaks off ({type(exc).__name__})") from None
            if len(out) > MAX_DECOMPRESSED_BYTES:
                raise _Unreadable(f"a compressed stream larger than {MAX_DECOMPRESSED_BYTES // 2**20} MB unpacked")
            at += CHUNK
        if not decompressor.eof:
            break  # cut short: a reader gets what it held
        rest = decompressor.unused_data + rest[at:]
        if not rest.strip(b"\0"):  # gzip's padding with zeros
            break
    return bytes(out)


def _unpacked(data: bytes) -> bytes | None:
    """``data`` decompressed (:func:`_streams`) where it is a gzip, bz2, xz/lzma or zlib stream
    (joblib's compressions), at most :data:`MAX_DECOMPRESSED_BYTES`; None where it is none of them."""
    kinds = ((b"\x1f\x8b", lambda: zlib.decompressobj(16 + zlib.MAX_WBITS)),
             (b"BZh", bz2.BZ2Decompressor), (b"\xfd7zXZ\x00", lzma.LZMADecompressor),
             (b"\x5d\x00\x00", lambda: lzma.LZMADecompressor(format=lzma.FORMAT_ALONE)),
             (b"\x78", zlib.decompressobj))
    for magic, make in kinds:
        if data.startswith(magic):
            try:
                return _streams(make, data)
            except _STREAM_ERRORS:
                continue  # not that stream after all (a file that merely starts with 0x78)
    return None


def _unpacked_headerless(data: bytes) -> list[bytes]:
    """``data`` decompressed where it is a zlib stream of any window size or an LZMA-alone stream of
    any literal settings, the formats whose first bytes are settings rather than a magic number:
    ``zlib.decompress`` reads a stream starting ``0x18``-``0x68`` (windows under 32 KB) and
    ``lzma.open``/``pandas.read_pickle`` of an ``.xz`` file one whose first byte is any of the 225
    ``lc``/``lp``/``pb`` settings, and such a compressed pickle calling ``builtins.exec`` passed
    the scan, which knew ``0x78`` and ``0x5d`` only (forty-third pass). Read leniently (these bytes
    often start honest binary files): what decodes is scanned, an error after it refuses nothing.
    Both are tried, each read on its own: bytes may read as either."""
    found = []
    if len(data) >= 2 and data[0] & 0x0F == 8 and data[0] >> 4 <= 7 and (data[0] << 8 | data[1]) % 31 == 0:
        with contextlib.suppress(*_STREAM_ERRORS):
            found.append(_streams(zlib.decompressobj, data, lenient=True))
    if len(data) >= 14 and data[0] < 225 and data[13] == 0:  # settings, then a range coder's zero byte
        # the dictionary size capped (liblzma allocates it up front; anything under the cap decodes alike)
        capped = data[:1] + min(int.from_bytes(data[1:5], "little"), 1 << 26).to_bytes(4, "little") + data[5:]
        with contextlib.suppress(*_STREAM_ERRORS):
            found.append(_streams(lambda: lzma.LZMADecompressor(format=lzma.FORMAT_ALONE), capped, lenient=True))
    return found


# zstd and lz4 frames, and the skippable frame (0x184D2A50-5F) either format may start with
_ARROW_FRAMES = ((b"\x28\xb5\x2f\xfd", ("zstd",)), (b"\x04\x22\x4d\x18", ("lz4",)))


def _arrow_frames(data: bytes) -> list[bytes]:
    """``data`` decompressed as pyarrow reads a zstd or lz4 file (``pickle.load(pyarrow.input_stream(
    "prior.zst"))``: pyarrow, which the sandbox has, detects the codec from the name), read by that
    same reader; none where it starts with neither frame. A zstd or lz4 pickle calling
    ``builtins.exec`` passed the scan, which knew gzip/bz2/xz/zlib only (forty-third pass). A
    stream that breaks off after yielding something, or unpacks past :data:`MAX_DECOMPRESSED_BYTES`,
    is :class:`_Unreadable`."""
    codecs = next((c for magic, c in _ARROW_FRAMES if data.startswith(magic)), ())
    if data[:1] and data[0] & 0xF0 == 0x50 and data[1:4] == b"\x2a\x4d\x18":
        codecs = ("zstd", "lz4")
    found = []
    for codec in codecs:
        try:
            import pyarrow as pa
        except ImportError:  # no pyarrow here: nothing in the sandbox reads these either
            return []
        out = bytearray()
        try:
            stream = pa.input_stream(pa.py_buffer(data), compression=codec)
            while chunk := stream.read(1 << 20):
                out += chunk
                if len(out) > MAX_DECOMPRESSED_BYTES:
                    raise _Unreadable(f"a {codec} stream larger than {MAX_DECOMPRESSED_BYTES // 2**20} MB unpacked")
        except (pa.ArrowException, OSError, ValueError) as exc:
            if out:
                raise _Unreadable(f"a {codec} stream that breaks off ({type(exc).__name__})") from None
            continue  # not that stream after all
        found.append(bytes(out))
    return found


def _npy_object_pickle(data: bytes) -> bytes | None:
    """The pickle after an ``.npy`` header whose dtype holds objects (a field of a structured dtype
    too); None otherwise. The header is read by numpy's own reader, which ``np.load`` uses."""
    if not data.startswith(b"\x93NUMPY"):
        return None
    stream = io.BytesIO(data)
    dtype = _npy_dtype(stream)
    return data[stream.tell():] if dtype.hasobject else None


def _npy_dtype(stream: io.BytesIO):
    """The dtype of the ``.npy`` header at ``stream``, read by numpy's own reader (the stream left at the
    array's first byte), or :class:`_Unreadable`. numpy reads a version 1 or 2 header that is no Python
    literal again through ``tokenize``, whose ``TokenError`` (an unclosed bracket) is no error numpy turns
    into its ValueError: a ``prior.npy`` whose header lacked its closing brace stopped `check` with
    "internal error: TokenError" (eighty-eighth pass)."""
    import tokenize

    from numpy.lib import format as npy

    try:
        version = npy.read_magic(stream)
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        return read(stream, max_header_size=2**20)[2]
    except (ValueError, SyntaxError, TypeError, OSError, tokenize.TokenError, MemoryError) as exc:
        raise _Unreadable(f"an .npy header numpy does not read ({type(exc).__name__})") from None


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The bytes of an archive member, or :class:`_Unreadable` where the zip reader cannot give them:
    an encrypted member (RuntimeError), corrupt deflate/bz2/xz data or a wrong CRC ended ``check``
    with an internal error (forty-second pass) instead of the folder's one line."""
    try:
        return archive.read(info)
    except (RuntimeError, zipfile.BadZipFile, NotImplementedError, EOFError, *_STREAM_ERRORS) as exc:
        raise _Unreadable(f"an archive member that does not read ({type(exc).__name__})") from None


def _found(data: bytes, depth: int = 0) -> list[tuple[str, str]]:
    """The globals every pickle in ``data`` names: as a whole, inside an archive or a compressed
    stream, or after an object ``.npy`` header. A zip archive is found as the zip reader finds it,
    by its end record: ``zipfile`` (and ``pandas.read_pickle`` of a ``.zip``) opens one behind
    other bytes, and a ``prior.zip`` starting with a comment line before a zip of a pickle naming
    ``builtins.exec`` was no pickle to the scan (forty-second pass). Such a file is read both ways."""
    if depth > MAX_NESTING:
        raise _Unreadable(f"archives nested deeper than {MAX_NESTING}")
    names = _zip_names(data, depth)
    if names is not None and data.startswith(b"PK"):
        return names
    return (names or []) + _found_unzipped(data, depth)


def _zip_names(data: bytes, depth: int) -> list[tuple[str, str]] | None:
    """The globals of the pickles in the members of ``data`` where the zip reader opens it (it
    starts with a local header or holds an end record where the reader looks for one, its last
    64 KB); None where it does not."""
    if not (data.startswith(b"PK") or b"PK\x05\x06" in data[-(1 << 16) - 22:]):
        return None
    _one_central_directory(data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names: list[tuple[str, str]] = []
            for info in archive.infolist():
                if info.file_size > MAX_DECOMPRESSED_BYTES:
                    raise _Unreadable(f"an archive member larger than {MAX_DECOMPRESSED_BYTES // 2**20} MB")
                names += _found(_member(archive, info), depth + 1)
            return names
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        if _has_end_record(data):
            # an end record found and a directory that does not read: miniz (torch.jit.load) reads
            # what Python's reader refuses (a malformed extra field it skips), and zipimport no zip64
            # archive, so a TorchScript program behind such a directory was no archive to any check
            # (fifty-fourth pass)
            raise _Unreadable(f"a zip archive Python's zip reader cannot open ({' '.join(str(exc).split())[:80]}), "
                              "which torch's reader may read") from None
        return None  # not an archive the zip reader opens: read as it is


def _has_end_record(data: bytes) -> bool:
    try:
        return bool(zipfile._EndRecData(io.BytesIO(data)))
    except (OSError, ValueError, struct_error):
        return False


def _one_central_directory(data: bytes) -> None:
    """Raises :class:`_Unreadable` where zip readers disagree on which central directory ``data``
    has: Python's (``zipfile``, ``zipimport``) takes the one that ends right before the end record
    and shifts every offset by the bytes in between (data prepended to an archive), while torch's
    (miniz: ``torch.load``, ``torch.jit.load``, ``torch.package``) takes the one at the offset the end
    record states. A ``prior.pt`` holding a directory at each place was a package of plain settings to
    the scan and a pickle naming ``builtins.exec`` to ``torch.package``'s ``load_pickle`` (fifty-third
    pass). Prepended data alone passes: the stated offset then holds no directory."""
    try:
        endrec = zipfile._EndRecData(io.BytesIO(data))
    except (OSError, ValueError, struct_error):
        return
    if not endrec:
        return
    size_cd, offset_cd = endrec[zipfile._ECD_SIZE], endrec[zipfile._ECD_OFFSET]
    concat = endrec[zipfile._ECD_LOCATION] - size_cd - offset_cd
    if endrec[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:
        concat -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator
    if concat and data[offset_cd:offset_cd + 4] == zipfile.stringCentralDir:
        raise _Unreadable("a zip archive with two central directories, one where its end record points and "
                          "another before that record: Python's zip reader and torch's read different members")
    _one_zip64_end(data, endrec)


def _one_zip64_end(data: bytes, endrec: list) -> None:
    """Raises :class:`_Unreadable` where Python's zip reader and torch's read a zip64 archive's
    directory from different end records. Python's ``zipfile`` takes the zip64 end record right before
    the locator, ignoring the offset the locator states (where none is there, the end record's
    all-ones zip64 marks, which open nothing); miniz takes the record at that offset; ``zipimport``
    reads no zip64 record at all. A ``net.pt`` whose locator pointed to a TorchScript program's
    directory and whose record before the locator to a state dict's (or to no record) was weights (or
    no archive) to the scan and ``zipped_modules``, which refuse TorchScript, and ran its program under
    ``torch.jit.load`` (fifty-fourth pass). Prepended data alone passes: the stated offset then holds
    no zip64 record."""
    location = endrec[zipfile._ECD_LOCATION]
    locator_at = location - zipfile.sizeEndCentDir64Locator
    if locator_at < 0 or data[locator_at:locator_at + 4] != zipfile.stringEndArchive64Locator:
        return
    try:
        _, _, stated, _ = struct_unpack(zipfile.structEndArchive64Locator, data[locator_at:location])
    except struct_error:
        raise _Unreadable("a zip64 archive whose locator does not read") from None
    python_reads = locator_at - zipfile.sizeEndCentDir64 \
        if endrec[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64 else None
    if stated != python_reads and data[stated:stated + 4] == zipfile.stringEndArchive64:
        raise _Unreadable("a zip64 archive whose locator points to another zip64 end record than the one before "
                          "it: Python's zip reader and torch's read different central directories")


def _found_unzipped(data: bytes, depth: int) -> list[tuple[str, str]]:
    """:func:`_found` for what is read as other than a zip archive."""
    if data.startswith(b"\x93NUMPY"):  # np.load unpickles what follows the header of object arrays only
        npy = _npy_object_pickle(data)
        return [] if npy is None else (_pickles_in(npy) or [])
    names: list[tuple[str, str]] = []
    if (inner := _unpacked(data)) is not None:
        names += _found(inner, depth + 1)
    for inner in _unpacked_headerless(data) + _arrow_frames(data):
        names += _found(inner, depth + 1)
    if (members := _tar_members(data)) is not None:
        names += [found for member in members for found in _found(member, depth + 1)]
    # and the bytes as a pickle themselves, whatever else they are: a loader may read them either way
    return names + (_pickles_in(data) or [])


def _tar_members(data: bytes) -> list[bytes] | None:
    """The regular members of ``data`` where it is a tar archive, None where it is not one.
    ``pandas.read_pickle`` unpickles what a ``.tar`` (``.tar.gz``...) holds, and a ``prior.tar`` of
    a pickle naming ``builtins.exec`` was no pickle to the scan: a tar header starts with the
    member's name, no pickle opcode (forty-second pass)."""
    import tarfile

    members: list[bytes] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for info in archive:
                if not info.isreg():
                    continue  # links, folders: no bytes of their own
                if info.size > MAX_DECOMPRESSED_BYTES:
                    raise _Unreadable(f"a tar member larger than {MAX_DECOMPRESSED_BYTES // 2**20} MB")
                members.append(b"")  # a member begun: an error from here on is the archive's
                members[-1] = archive.extractfile(info).read()
            return members
    except (tarfile.TarError, OSError, ValueError, EOFError) as exc:
        if members:  # a reader may have had the members before the break
            raise _Unreadable(f"a tar archive that breaks off ({type(exc).__name__})") from None
        return None  # not a tar archive


def _own_classes(root: Path, module: str) -> set[str]:
    """The classes the submission's module ``module`` defines at its top level, read from its
    source (never imported), in every file of the folder that Python could import under that name:
    a predictor may put any subfolder on ``sys.path`` first. A name also bound otherwise at the top
    level (assigned, imported, a function) is not a class. A ``vendor/helpers.py`` ending in
    ``Table = exec``, put on ``sys.path`` before the folder, made the ``helpers.Table`` that the
    folder's ``helpers.py`` defines as a class run ``exec`` (forty-second pass)."""
    classes: set[str] | None = None
    for source in _module_files(root, module):
        try:
            tree = ast.parse(source.read_bytes())
        except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
            return set()  # a file of that name the scan cannot read: nothing of it is a known class
        defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        defined -= _bound_otherwise(tree)
        classes = defined if classes is None else classes & defined
    return classes or set()


def _module_files(root: Path, module: str) -> list[Path]:
    """Every regular file under ``root`` that ``import module`` could load from some folder of it
    (``a/b.py`` or ``a/b/__init__.py`` for ``a.b``, wherever it sits), links left out."""
    tails = (tuple(module.split(".")[:-1]) + (module.split(".")[-1] + ".py",),
             tuple(module.split(".")) + ("__init__.py",))
    found = []
    for folder, _, files in os.walk(root):
        for file in files:
            path = Path(folder, file)
            parts = path.relative_to(root).parts
            if any(parts[-len(t):] == t for t in tails if len(parts) >= len(t)) and not path.is_symlink():
                found.append(path)
    return found


def _own_class_runs_state(root: Path, module: str, name: str, depth: int = 0) -> str | None:
    """Why the submission's class ``module``.``name`` would run its pickled state as code: a base
    named in its source (through the module's imports, or another of the submission's classes)
    that is a :data:`STATE_RUNS_CODE` class. ``class Prior(rv_continuous)`` in a ``helpers.py``
    passed as the submission's own, and a pickled ``Prior`` whose state set ``_parse_arg_template``
    ran it (forty-eighth pass). Bases built at run time are the sandbox's guard's to refuse, which
    looks at the class itself."""
    if depth > 8:
        return "a chain of the submission's classes too deep to follow"
    tops = {m.split(".")[0] for m, _ in STATE_RUNS_CODE}
    for source in _module_files(root, module):
        try:
            tree = ast.parse(source.read_bytes())
        except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
            return "a source the scan cannot read"
        imported = _imported_names(tree)
        for node in tree.body:
            if not (isinstance(node, ast.ClassDef) and node.name == name):
                continue
            for base in node.bases:
                dotted = _dotted(base)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                if head not in imported:
                    if not rest and head != name and head in _own_classes(root, module):
                        if why := _own_class_runs_state(root, module, head, depth + 1):
                            return why
                    continue
                full = imported[head] + ("." + rest if rest else "")
                owner, _, cls_name = full.rpartition(".")
                if owner and _own_module(root, owner.split(".")[0]):
                    if why := _own_class_runs_state(root, owner, cls_name, depth + 1):
                        return why
                elif full.split(".")[0] in tops:
                    if not owner or _program_module(owner) is not None:
                        return f"a subclass of {full[:80]}, which the scan does not import"
                    try:
                        cls = _resolved_quietly(owner, cls_name)
                    except Exception as exc:  # noqa: BLE001 - a base the scan cannot find: refused, with why
                        return f"a subclass of {full[:80]}, which does not resolve ({type(exc).__name__})"
                    if isinstance(cls, type) and (why := _runs_its_state(cls)):
                        return f"{why} (its base {full[:80]})"
    return None


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """The names a module's top-level absolute imports bind, each to the dotted name it stands for."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a name or an attribute chain of one; None for any other expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _bound_otherwise(tree: ast.Module) -> set[str]:
    """Names a module's top level binds other than by ``class``: assignments, imports, functions."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
                             ast.withitem, ast.Delete)):
            targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                       else [node.optional_vars] if isinstance(node, ast.withitem) else [node.target])
            bound.update(n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in tree.body:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound


def importable_by_statement(module: str) -> bool:
    """Whether ``module`` is a dotted name an ``import`` statement can write (every part a Python name, no
    keyword).
    The unpickler imports any text that names a folder, and RULES puts helper scripts the predictor does
    not import in a folder of no Python name (``scripts-train/``, ``2024_scripts/``), which no check judges
    as a module: a ``prior.pkl`` naming ``2024_scripts.hook.Prior``, a class that folder's ``hook.py``
    defines at its top level, passed the scan and the sandbox's guard as the submission's own class, and
    loading it beside a median ran the helper script (sixty-first pass of 2026-12-05). Every module a
    library's pickles name, and every one the predictor's import statements name, has such a name."""
    import keyword

    return all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split("."))


def _own_module(root: Path, top: str) -> bool:
    """Whether the unpickler's ``import top`` would load the submission's file of that name: only
    where the folder has one and no module of the interpreter or the environment takes the name
    first. The unpickler looks a module up in ``sys.modules`` before any path, and the interpreter's
    own (``builtins``, ``os``, ``sys``) and the libraries the harness imported are there: a
    ``builtins.py`` holding ``class exec: pass`` made ``builtins.exec`` pass as the submission's
    class, and loading it ran the real ``exec`` (forty-second pass). Such a name is judged as a
    library's (and refused unless it is one of :data:`CLASS_PACKAGES`'s classes)."""
    if not ((root / f"{top}.py").is_file() or (root / top / "__init__.py").is_file()):
        return False
    return not library_module(root, top)


def library_module(root: Path, top: str) -> bool:
    """Whether a module of the interpreter (built-in or standard) or of the environment (installed)
    has the top-level name ``top``, the folder ``root`` itself left out."""
    import importlib.machinery
    import sys

    if top in sys.builtin_module_names or top in sys.stdlib_module_names or top in ("__main__", "__mp_main__"):
        return True  # the interpreter's own, and the sandbox child's main module, are in sys.modules
    # installed in the environment (perfgraphs too, through its editable finder), the folder itself
    # left out: ``python -m`` run from inside it puts it on sys.path, where the name is the folder's
    here = root.resolve()
    paths = [p for p in sys.path if Path(p or ".").resolve() != here]
    for finder in sys.meta_path:
        try:
            if finder is importlib.machinery.PathFinder:
                found = finder.find_spec(top, paths)
            elif hasattr(finder, "find_spec"):
                found = finder.find_spec(top, None)
            else:
                continue
        except (ImportError, ValueError, AttributeError):  # a finder that cannot answer: not the folder's
            return True
        if found is not None:
            return True
    return False


def _inside(root: Path, top: str) -> bool:
    """Whether this process would import ``top`` from the submission's folder (``python -m
    perfgraphs check .`` run inside it puts the folder first on ``sys.path``): the scan imports
    libraries to tell a class from a function, and must never run the submission's code."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return True
    origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    return origin is not None and origin.is_relative_to(root.resolve())


def _resolved(module: str, name: str):
    """The object ``module``.``name`` names, importing the module (a library's, by the callers),
    through classes only where the name is dotted (``Outer.Inner``): never through a module's
    attribute (``sklearn.base`` ``inspect.os.system``)."""
    obj = importlib.import_module(module)
    for i, part in enumerate(name.split(".")):
        if i and not isinstance(obj, type):
            raise AttributeError(f"{name} reaches past a class")
        obj = getattr(obj, part)
    return obj


def _resolved_quietly(module: str, name: str):
    """:func:`_resolved`, what its import prints kept out of the command's output and an import
    that exits (``SystemExit``) an ImportError: the check's one line and exit status stay its own."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return _resolved(module, name)
        except SystemExit:
            raise ImportError(f"importing {module[:80]} exits") from None


# classes of those libraries whose unpickling runs a string of the pickled state as code: a scipy.stats
# distribution's __setstate__ runs ``exec(self._parse_arg_template)``, and a pickle of ``norm_gen``
# whose state was ``{"_parse_arg_template": "<any code>"}`` ran that code (forty-second pass)
STATE_RUNS_CODE = (("scipy.stats._distn_infrastructure", "rv_generic"),)


def _runs_its_state(cls: type, loaded_only: bool = False) -> str | None:
    """Why unpickling an instance of the library class ``cls`` would run its state as code; None
    where it does not (as far as :data:`STATE_RUNS_CODE` knows). With ``loaded_only``, ``cls`` may be
    any class (the submission's own: a subclass of a scipy distribution runs its state alike) and
    only the modules already imported are consulted (a class cannot subclass one that is not)."""
    import sys

    for module, name in STATE_RUNS_CODE:
        if not loaded_only and cls.__module__.split(".")[0] != module.split(".")[0]:
            continue
        try:
            base = getattr(sys.modules[module] if loaded_only else importlib.import_module(module), name)
        except (ImportError, AttributeError, KeyError):  # a version of the library without it: no class is one
            continue
        if issubclass(cls, base):
            return f"a subclass of {module}.{name}, whose unpickling runs a string of its state as code"
    return None


def _program_module(module: str) -> str | None:
    """Why ``module`` is not imported to be judged: the scan imports a library's module in the
    checking process, outside the sandbox, and a program's or a test's module does its work on
    import. ``numpy.f2py.__main__`` ran f2py's command line on ``perfgraphs check``'s own arguments,
    which printed f2py's lines and exited the check with status 0 before anything ran (forty-second
    pass). A fitted model's classes live in neither; nor in a test runner's module, whose objects
    run a test suite when called: ``numpy._pytesttester.PytestTester("numpy")`` called from a
    pickle with ``--doctest-glob=notes.txt`` ran the code of a text file (forty-second pass)."""
    for part in module.split("."):
        if part in ("__main__", "conftest") or "test" in part.lower():
            return "a program's or tests' module, which importing runs"
    if module.startswith(TOOL_MODULES) and module.split(".")[:2] != ["numpy", "_core"]:
        return "a build, foreign-function or distributed-computing tool's module, no model's"
    if module.split(".")[0] == "numpy" and not (module == "numpy" or module.startswith(NUMPY_DATA_MODULES)):
        return "not one of numpy's array, dtype or random modules"
    return None


# what a fitted model's pickle never needs of those libraries, and whose classes build, compile,
# call foreign code or start services when constructed (``numpy.distutils``' compiler classes run
# compilers: the forty-second pass's lead)
TOOL_MODULES = ("numpy.distutils", "numpy.f2py", "numpy.ctypeslib", "numpy._pyinstaller", "sklearn._build_utils",
                "sklearn.externals", "sklearn.utils._show_versions", "scipy._build_utils", "xgboost.dask",
                "xgboost.spark", "xgboost.tracker", "lightgbm.dask")
# numpy's modules whose classes are data: arrays (masked, record, matrix), dtypes, random generators,
# polynomials; a fitted model's pickle names numpy's classes from these only
NUMPY_DATA_MODULES = ("numpy._core", "numpy.core", "numpy.dtypes", "numpy.random", "numpy.ma", "numpy.polynomial",
                      "numpy.matrixlib", "numpy.rec")


def _numpy_data_class(cls: type) -> bool:
    """Whether ``cls`` is numpy's data: an array, a dtype or a scalar type, or a class of its random,
    polynomial or masked-array modules. numpy names its public classes ``numpy`` whatever module
    defines them, so ``numpy.vectorize`` (whose call runs what it wraps) reads as numpy's own."""
    import numpy

    return issubclass(cls, (numpy.ndarray, numpy.dtype, numpy.generic)) or \
        cls.__module__.startswith(("numpy.random", "numpy.polynomial", "numpy.ma"))


def _torch_allowed() -> set[str]:
    try:
        from torch import _weights_only_unpickler
        return set(_weights_only_unpickler._get_allowed_globals())
    except (ImportError, AttributeError):  # another torch: its globals are refused, with the reason
        return set()


def global_problem(root: Path, module: str, name: str) -> str | None:
    """Why the global ``module``.``name`` may not be in a shipped pickle; None where it may."""
    if (module, name) in RECONSTRUCTORS:
        return None
    if not importable_by_statement(module):
        return ("a module of no Python name, which no import statement names: a folder of helper scripts the "
                "predictor does not import")
    top = module.split(".")[0]
    if top == "torch":
        return None if f"{module}.{name}" in _torch_allowed() else "not in torch's weights_only allow-list"
    if _own_module(root, top):  # Python imports it from the folder
        if name not in _own_classes(root, module):
            return "not a class the submission's source defines at the top level"
        return _own_class_runs_state(root, module, name)
    if top not in CLASS_PACKAGES:
        return f"not of {', '.join(CLASS_PACKAGES)} or torch"
    if _inside(root, top):
        return "found in the submission's folder, which the scan never imports"
    if (why := _program_module(module)) is not None:
        return why
    try:
        obj = _resolved_quietly(module, name)
    except Exception as exc:  # noqa: BLE001 - any import or lookup failure: the name is refused, with why
        return f"does not resolve ({type(exc).__name__})"
    defined_in = str(getattr(obj, "__module__", None))
    if defined_in.split(".")[0] not in CLASS_PACKAGES:
        # an import such a module holds (``from subprocess import Popen``) is not the library's
        return f"defined in {defined_in[:80]}, not in those libraries"
    if (why := _program_module(defined_in)) is not None:  # ``numpy.vectorize``: numpy's name, a tool's class
        return f"defined in {defined_in[:80]}: {why}"
    if isinstance(obj, type):
        if defined_in.split(".")[0] == "numpy" and not _numpy_data_class(obj):
            return "a class of numpy that holds no data (numpy exports its tools' classes as its own)"
        return _runs_its_state(obj)
    if name.split(".")[-1].startswith("__pyx_unpickle_"):  # Cython's rebuilder of its own class
        return None
    import numpy

    if isinstance(obj, numpy.ufunc):
        return None
    if callable(obj) and getattr(obj, "__module__", "").startswith(FUNCTION_MODULES) \
            and module.startswith(FUNCTION_MODULES):
        return None
    return "a function or object, not a class of those libraries"


def shipped_pickle_problems(root: Path) -> list[str]:
    """One line for each file of the submission whose pickles name a global :func:`global_problem`
    refuses, or that the scan cannot read."""
    return shipped_pickles(root)[0]


def shipped_pickles(root: Path) -> tuple[list[str], set[str]]:
    """(:func:`shipped_pickle_problems`' lines, the top-level module names the submission's pickles
    name: an unpickler imports them, as a source's import would)."""
    from perfgraphs.leaderboard.regular_files import regular_files

    problems, modules = [], set()
    for path in regular_files(root):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if path.suffix == ".py" and not _source_unpickles(data):
            continue  # source: read by the source checks and the review, no pickle to the unpickler
        where = path.relative_to(root)
        try:
            names = _found(data)
        except (_Unreadable, RecursionError) as exc:
            problems.append(f"{where}: a pickle the scan cannot read ({exc}): ship weights as .npy/.npz, "
                            "safetensors, JSON or a booster's own format")
            continue
        modules.update(module.split(".")[0] for module, _ in names)
        for module, name in dict.fromkeys(names):
            if (why := global_problem(root, module, name)) is not None:
                problems.append(f"{where}: a pickle naming {module[:80]}.{name[:80]} ({why}), which loading "
                                "it would call: ship weights as .npy/.npz, safetensors, JSON or a booster's "
                                "own format, or pickle only classes of numpy, scikit-learn, SciPy, XGBoost, "
                                "LightGBM or torch")
                break
    return problems, modules


YAML_PYTHON_TAG = "tag:yaml.org,2002:python/"
# the Python tags whose suffix names an object PyYAML's full loaders look up (and call, for the objects)
YAML_NAMING_TAGS = ("name:", "object:", "object/apply:", "object/new:")


def yaml_tag_problem(root: Path, tag: str) -> str | None:
    """Why a YAML node tagged ``tag`` may not be in a file the submission ships or loads (None: it may).
    PyYAML's full loaders (``yaml.Loader``, ``yaml.unsafe_load``, ``yaml.CLoader``) build a
    ``!!python/object/apply:builtins.exec`` node by importing and calling the name, as an unpickler does a
    pickle's global, so a name passes where a pickle may name it (:func:`global_problem`); a
    ``!!python/module:`` node imports a module and is refused (hundred-and-fifteenth pass, side b)."""
    if not isinstance(tag, str) or not tag.startswith(YAML_PYTHON_TAG):
        return None
    suffix = tag[len(YAML_PYTHON_TAG):]
    if suffix.startswith("module:"):
        return f"imports the module {suffix[7:87]!r}"
    for kind in YAML_NAMING_TAGS:
        if suffix.startswith(kind):
            module, _, name = suffix[len(kind):].rpartition(".")
            module = module or "builtins"  # as PyYAML reads a name without a module
            if (why := global_problem(root, module, name)) is not None:
                return f"names {module[:80]}.{name[:80]} ({why})"
    return None
