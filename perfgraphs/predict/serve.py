"""The web form of ``perfgraphs serve`` (FastAPI, the ``serve`` extra): a model (zoo name, encoder
LLM id or ONNX upload), batch (or a sweep "1,8,32"), an optional second model (a zoo name) to
compare with, input size or sequence length, platform and mode → the predictions and the report
(a comparison table first for a sweep or two models), or the one-line error of bad input, shown on
the page."""

# no `from __future__ import annotations`: FastAPI reads the endpoint annotations at run time and
# UploadFile is imported inside create_app (the serve extra is optional)

import html
import re
import threading

from perfgraphs.errors import PerfgraphsError
from perfgraphs.predict.report import body, comparison_body, page
from perfgraphs.registry import CPU_TORCH_FP32

# An upload larger than this is refused before it is parsed (the largest ONNX graph the project
# exports, without weights, is a few MB; the graph is all a prediction reads).
MAX_UPLOAD_MB = 64
# How long a request waits for the one export in flight before the page answers "busy": exporting
# a model to ONNX is not re-entrant (torch.onnx's global export state), so one runs at a time.
BUSY_WAIT_S = 30.0
# A zoo name as typed in the form: zoo:arch, the arch letters, digits, '_', '-', '.', and for hf
# one "org/" prefix. Never a path: the form must not read, or say anything about, the server's files.
_MODEL_NAME = re.compile(r"^(timm|torchvision):[A-Za-z0-9_.\-]+$|^hf:([A-Za-z0-9_.\-]+/)?[A-Za-z0-9_.\-]+$")


class ServeBusyError(PerfgraphsError):
    """Another prediction held the form's one export slot for longer than :data:`BUSY_WAIT_S`."""


class UploadTooLargeError(PerfgraphsError):
    """An upload (or a whole request) over :data:`MAX_UPLOAD_MB`."""


def checked_model_name(text: str) -> str:
    """``text`` when it is a zoo name the form accepts; else a typed error that names the accepted
    forms and never the server's file system (a path is refused without being looked at)."""
    from perfgraphs.errors import UnknownModelError

    name = text.strip()
    if not _MODEL_NAME.match(name) or ".." in name:
        raise UnknownModelError("the form takes a zoo name (timm:<arch>, torchvision:<arch>, hf:<id>) or an "
                                f"uploaded ONNX file, got {name[:80]!r}")
    return name


class ServeExtraMissingError(PerfgraphsError):
    """``perfgraphs serve`` without its optional dependencies."""


def _form(values: dict, platforms) -> str:
    def v(name: str) -> str:
        return html.escape(str(values.get(name) or ""), quote=True)

    options = []
    for name in sorted({p.name for p in platforms}):
        hardware = next(p.hardware for p in platforms if p.name == name)
        selected = " selected" if name == (values.get("platform") or CPU_TORCH_FP32) else ""
        options.append(f"<option value='{html.escape(name)}'{selected}>{html.escape(name)} — "
                       f"{html.escape(hardware)}</option>")
    mode = values.get("mode") or "infer"
    return (
        "<form id='predict-form' method='post' action='/predict' enctype='multipart/form-data'>"
        "<p><label>Model <input name='model' id='model' size='40' placeholder='timm:resnet50, torchvision:vgg16, "
        f"hf:bert-base-uncased' value='{v('model')}'></label> or an ONNX file <input type='file' name='onnx' "
        "id='onnx' accept='.onnx'></p>"
        "<p><label>Compare with <input name='compare' id='compare' size='40' placeholder='optional: a second zoo "
        f"name, e.g. timm:mobilenetv3_small_100' value='{v('compare')}'></label></p>"
        f"<p><label>Batch <input name='batch' id='batch' size='12' placeholder='1 or 1,8,32' "
        f"value='{v('batch') or 1}'></label> "
        f"<label>Input C,H,W <input name='input' id='input' size='12' placeholder='3,224,224' value='{v('input')}'>"
        f"</label> <label>or sequence length <input name='seq_len' id='seq_len' size='6' value='{v('seq_len')}'>"
        "</label></p>"
        f"<p><label>Platform <select name='platform' id='platform'>{''.join(options)}</select></label> "
        "<label>Mode <select name='mode' id='mode'>"
        + "".join(f"<option{' selected' if m == mode else ''}>{m}</option>" for m in ("infer", "train"))
        + "</select></label> <button type='submit' id='submit'>Predict</button></p></form>")


def create_app(artifacts=None):
    try:
        from fastapi import FastAPI, File, Form, UploadFile
        from fastapi.responses import HTMLResponse
    except ImportError as exc:
        raise ServeExtraMissingError(f"the web form needs the serve extra ({exc.name} is missing): "
                                     "pip install -e '.[serve]'") from None
    from perfgraphs.predict.api import platforms, predict, predict_many
    from perfgraphs.predict.sweep import check_sweep, parse_batches

    kwargs = {"artifacts": artifacts} if artifacts is not None else {}
    app = FastAPI(title="perfgraphs predict")
    export_slot = threading.Lock()  # per app: one export at a time (see BUSY_WAIT_S)

    @app.middleware("http")
    async def refuse_large_bodies(request, call_next):
        # before the multipart body is read: a client saying it sends more is answered at once
        size = request.headers.get("content-length", "")
        if size.isdigit() and int(size) > (MAX_UPLOAD_MB + 1) * 2**20:
            error = f"the upload is {int(size) / 2**20:.0f} MB; the form takes ONNX files up to {MAX_UPLOAD_MB} MB"
            return HTMLResponse(page(title, f"<h1>{title}</h1>{_form({}, known)}"
                                     f"<p class='error' id='error'>error: {html.escape(error)}</p>"), status_code=413)
        return await call_next(request)
    known = platforms(**kwargs)
    title = "perfgraphs predict"

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page(title, f"<h1>{title}</h1>{_form({}, known)}")

    @app.post("/predict", response_class=HTMLResponse)
    def answer(model: str = Form(""), batch: str = Form("1"), input: str = Form(""), seq_len: str = Form(""),
               platform: str = Form(CPU_TORCH_FP32), mode: str = Form("infer"), compare: str = Form(""),
               onnx: UploadFile | None = File(None)) -> HTMLResponse:
        values = {"model": model, "batch": batch, "input": input, "seq_len": seq_len, "platform": platform,
                  "mode": mode, "compare": compare}
        try:
            sources = _sources(_read_upload(onnx), model, compare)
            sources, batches = check_sweep(sources, parse_batches(batch))  # the API's limits, before the slot
            args = dict(input=input.strip() or None,
                        seq_len=_int(seq_len, "sequence length") if seq_len.strip() else None,
                        platform=platform, mode=mode, **kwargs)
            if not export_slot.acquire(timeout=BUSY_WAIT_S):
                raise ServeBusyError(f"busy: another prediction has been running for over {BUSY_WAIT_S:g} s; "
                                     "try again in a minute")
            try:  # a sweep holds the slot throughout: each of its exports is one at a time too
                if len(sources) == 1 and len(batches) == 1:
                    content = body(predict(sources[0], batch=batches[0], **args))
                else:
                    content = comparison_body(predict_many(sources, batches, **args))
            finally:
                export_slot.release()
            status = 200
        except PerfgraphsError as exc:
            status = 503 if isinstance(exc, ServeBusyError) else 413 if isinstance(exc, UploadTooLargeError) else 400
            content = f"<p class='error' id='error'>error: {html.escape(str(exc))}</p>"
        except Exception as exc:  # never a traceback in the page: the one line of what went wrong
            line = (str(exc).strip().splitlines() or [""])[0][:300]
            content, status = f"<p class='error' id='error'>internal error: {html.escape(type(exc).__name__)}: " \
                              f"{html.escape(line)}</p>", 500
        return HTMLResponse(page(title, f"<h1>{title}</h1>{_form(values, known)}{content}"), status_code=status)

    return app


def _sources(data: bytes, model: str, compare: str) -> list:
    """The form's models: the uploaded file or the typed name, then the second model to compare
    with, which is a zoo name only (one upload per request keeps the size limit one limit)."""
    if data and model.strip():
        raise PerfgraphsError("give either a model name or an ONNX file, not both: clear one of the two")
    source = data if data else checked_model_name(model) if model.strip() else ""
    if not source:
        raise PerfgraphsError("give a model name (timm:resnet50, hf:bert-base-uncased) or an ONNX file")
    if not compare.strip():
        return [source]
    from perfgraphs.errors import UnknownModelError

    try:
        return [source, checked_model_name(compare)]
    except UnknownModelError as exc:
        raise UnknownModelError(f"compare with: {exc} (an ONNX file compares only as the first model)") from None


def _read_upload(onnx) -> bytes:
    """The uploaded file's bytes, at most :data:`MAX_UPLOAD_MB` (a chunked request has no
    Content-Length for the middleware to check); b"" when none was chosen."""
    if onnx is None or not onnx.filename:
        return b""
    data = onnx.file.read(MAX_UPLOAD_MB * 2**20 + 1)
    if len(data) > MAX_UPLOAD_MB * 2**20:
        raise UploadTooLargeError(f"the uploaded file is over {MAX_UPLOAD_MB} MB; the form takes ONNX files up to "
                                  f"{MAX_UPLOAD_MB} MB (the graph without its weights is enough)")
    return data


def _int(text: str, what: str) -> int:
    from perfgraphs.errors import InvalidInputSpecError

    try:
        return int(str(text).strip())
    except ValueError:
        raise InvalidInputSpecError(f"{what} must be an integer, got {text!r}") from None


def serve(host: str = "127.0.0.1", port: int = 7860, artifacts=None) -> None:
    app = create_app(artifacts)
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
