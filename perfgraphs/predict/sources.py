"""A predict source → its :class:`PerfGraph`, with the export cached: in this process, and on disk
for zoo names (the exported ONNX, without weights, under ``$PERFGRAPHS_HOME/predict/graphs``), so a
second question about the same model skips the export (the acceptance's "cached graph")."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from perfgraphs.errors import InvalidInputSpecError

_TEMPLATES: dict = {}
CACHE_VERSION = 1


def parse_input(input) -> tuple[int, ...] | None:
    """``"3,224,224"`` / ``(3, 224, 224)`` / None → a per-sample image shape."""
    from perfgraphs.graph import parse_image_shape
    from perfgraphs.graph.inputs import check_ranges

    if input is None or input == "":
        return None
    if isinstance(input, str):
        return parse_image_shape(input)
    try:
        shape = tuple(int(v) for v in input)
    except (TypeError, ValueError):
        raise InvalidInputSpecError(f"input must be a shape like 3,224,224, got {input!r}") from None
    check_ranges(image_shape=shape)
    return shape


def _cache_dir() -> Path:
    from perfgraphs.paths import perfgraphs_home

    return perfgraphs_home() / "predict/graphs"


def _versions() -> str:
    """The exporters' versions, read from package metadata: a cached call must not pay for
    importing torch and timm just to check them."""
    from importlib.metadata import PackageNotFoundError, version

    def v(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "-"

    return f"v{CACHE_VERSION} " + " ".join(f"{n} {v(n)}" for n in ("torch", "timm", "transformers", "onnx"))


def _template_from_disk(key: str):
    import onnx

    from perfgraphs.graph import GraphTemplate, InputSpec

    base = _cache_dir() / key
    try:
        meta = json.loads((base.with_suffix(".json")).read_text())
        if meta.get("versions") != _versions():
            return None
        data = base.with_suffix(".onnx").read_bytes()
        if hashlib.sha256(data).hexdigest() != meta["onnx_sha256"]:
            return None
        spec = meta.get("spec")
        spec = InputSpec(**{**spec, "image_shape": tuple(spec["image_shape"]) if spec.get("image_shape") else None}) \
            if spec else None
        return GraphTemplate(onnx.load_from_string(data), name=meta["name"], spec=spec)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or unreadable: export again


def _template_to_disk(key: str, template) -> None:
    from dataclasses import asdict

    base = _cache_dir() / key
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        data = template.model.SerializeToString()
        for suffix, content in ((".onnx", data), (".json", json.dumps({
                "name": template.name, "versions": _versions(), "onnx_sha256": hashlib.sha256(data).hexdigest(),
                "spec": asdict(template.spec) if template.spec else None}).encode())):
            tmp = base.with_name(f"{base.name}{suffix}.tmp-{os.getpid()}")
            tmp.write_bytes(content)
            os.replace(tmp, base.with_suffix(suffix))
    except OSError:
        pass  # a read-only cache only costs the next call an export


def template_of(source, image_shape=None, seq_len=None):
    """The :class:`GraphTemplate` of a source (a zoo name, an ONNX path or bytes, a module)."""
    from perfgraphs.graph import InputSpec, graph_template
    from perfgraphs.graph.zoo import is_model_name

    if isinstance(source, str) and is_model_name(source) and not Path(source).exists():
        key = hashlib.sha256(repr((source, image_shape, seq_len)).encode()).hexdigest()[:24]
        if key in _TEMPLATES:
            return _TEMPLATES[key]
        template = _template_from_disk(key)
        if template is None:
            template = graph_template(source, image_shape=image_shape, seq_len=seq_len)
            _template_to_disk(key, template)
        _TEMPLATES[key] = template
        return template
    if hasattr(source, "state_dict") and hasattr(source, "forward"):  # a torch.nn.Module
        if image_shape is None and seq_len is None:
            raise InvalidInputSpecError("a torch.nn.Module needs input=C,H,W (or seq_len=...) to be exported")
        spec = InputSpec(image_shape=image_shape) if image_shape is not None else InputSpec(seq_len=seq_len)
        return graph_template(source, input_spec=spec)
    return graph_template(source, image_shape=image_shape, seq_len=seq_len)


def graph_of(template, batch_size: int, seq_len: int | None):
    from perfgraphs.graph.inputs import check_ranges

    check_ranges(batch_size=batch_size, seq_len=seq_len)
    if seq_len is not None and template.dynamic_sequence:
        return template.graph(batch_size, seq_len)
    text_seq = template.spec.seq_len if template.spec else None
    return template.graph(batch_size, text_seq if template.dynamic_sequence else None)
