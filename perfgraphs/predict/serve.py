"""The web form of ``perfgraphs serve`` (FastAPI, the ``serve`` extra): a model (zoo name, encoder
LLM id or ONNX upload), batch, input size or sequence length, platform and mode → the predictions
and the report, or the one-line error of bad input, shown on the page."""

# no `from __future__ import annotations`: FastAPI reads the endpoint annotations at run time and
# UploadFile is imported inside create_app (the serve extra is optional)

import html

from perfgraphs.errors import PerfgraphsError
from perfgraphs.predict.report import body, page


class ServeExtraMissingError(PerfgraphsError):
    """``perfgraphs serve`` without its optional dependencies."""


def _form(values: dict, platforms) -> str:
    def v(name: str) -> str:
        return html.escape(str(values.get(name) or ""), quote=True)

    options = []
    for name in sorted({p.name for p in platforms}):
        hardware = next(p.hardware for p in platforms if p.name == name)
        selected = " selected" if name == (values.get("platform") or "cpu-torch-fp32") else ""
        options.append(f"<option value='{html.escape(name)}'{selected}>{html.escape(name)} — "
                       f"{html.escape(hardware)}</option>")
    mode = values.get("mode") or "infer"
    return (
        "<form id='predict-form' method='post' action='/predict' enctype='multipart/form-data'>"
        "<p><label>Model <input name='model' id='model' size='40' placeholder='timm:resnet50, torchvision:vgg16, "
        f"hf:bert-base-uncased' value='{v('model')}'></label> or an ONNX file <input type='file' name='onnx' "
        "id='onnx' accept='.onnx'></p>"
        f"<p><label>Batch <input name='batch' id='batch' size='6' value='{v('batch') or 1}'></label> "
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
    from perfgraphs.predict.api import platforms, predict

    kwargs = {"artifacts": artifacts} if artifacts is not None else {}
    app = FastAPI(title="perfgraphs predict")
    known = platforms(**kwargs)
    title = "perfgraphs predict"

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page(title, f"<h1>{title}</h1>{_form({}, known)}")

    @app.post("/predict", response_class=HTMLResponse)
    def answer(model: str = Form(""), batch: str = Form("1"), input: str = Form(""), seq_len: str = Form(""),
               platform: str = Form("cpu-torch-fp32"), mode: str = Form("infer"),
               onnx: UploadFile | None = File(None)) -> HTMLResponse:
        values = {"model": model, "batch": batch, "input": input, "seq_len": seq_len, "platform": platform,
                  "mode": mode}
        try:
            data = onnx.file.read() if onnx is not None and onnx.filename else b""
            source = data if data else model.strip()
            if not source:
                raise PerfgraphsError("give a model name (timm:resnet50, hf:bert-base-uncased) or an ONNX file")
            result = predict(source, batch=_int(batch, "batch"), input=input.strip() or None,
                             seq_len=_int(seq_len, "sequence length") if seq_len.strip() else None,
                             platform=platform, mode=mode, **kwargs)
            content, status = body(result), 200
        except PerfgraphsError as exc:
            content, status = f"<p class='error' id='error'>error: {html.escape(str(exc))}</p>", 400
        except Exception as exc:  # never a traceback in the page: the one line of what went wrong
            line = (str(exc).strip().splitlines() or [""])[0][:300]
            content, status = f"<p class='error' id='error'>internal error: {html.escape(type(exc).__name__)}: " \
                              f"{html.escape(line)}</p>", 500
        return HTMLResponse(page(title, f"<h1>{title}</h1>{_form(values, known)}{content}"), status_code=status)

    return app


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
