"""Importer for the ML.ENERGY leaderboard data (``public/data/``: index.json + models/*.json).

The leaderboard publishes, per (model, task), every serving configuration it measured with vLLM
(LLMs, multimodal LLMs) or diffusers (text-to-image / text-to-video) on H100 and B200 GPUs, with
throughput, latency and energy. It is the project's source of real multi-GPU LLM serving rows.
This module flattens it into one ``pyarrow.Table`` row per configuration. Fields a configuration
does not have (LLM-only fields on a diffusion row and vice versa) are null: nothing is derived or
filled in. Every model file of the source folder that parses is read (a file that does not is
skipped with one line saying why); the files of the pinned commit keep their committed sha256, and
the build records the name and sha256 of every file read. ``index.json`` adds the modality (its
task grouping) and model fields a file lacks; a folder without it still imports its model files,
with ``modality`` null for tasks no index names.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from perfgraphs.loaders.sources import (ImportedFile, SkippedFile, SkippedSourceFileWarning, SourceFile,
                                        SourceFormatError, discover_source)

MLENERGY_COMMIT = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"
MLENERGY_SUBDIR = "mlenergy-leaderboard"
MLENERGY_URL = ("https://raw.githubusercontent.com/ml-energy/leaderboard/"
                f"{MLENERGY_COMMIT}/public/data/{{name}}")

# sha256 of each pinned file (hashes, not data). The upstream commit holds 20 more model files
# than this list; only files whose bytes were verified locally are pinned.
_SHA256: dict[str, str] = {
    "index.json": "b638d291fc6a0588afeb0deccbcf8fa94e197fadf557614e8b978932d5e1ac65",
    "models/PixArt-alpha__PixArt-Sigma-XL-2-1024-MS__text-to-image.json": "f65f4b42c332d2f7eedc50a335f08f8b7a669ef5d9aa5af8fe11fd1ea0819433",
    "models/Qwen__Qwen3-14B__gpqa.json": "2205fbb03251af3120b5b99e5c4ae0d5062f6a6c0540e18d45a767adf3f085ea",
    "models/Qwen__Qwen3-14B__lm-arena-chat.json": "a257c7c10b397d2271ce7c88ce39f2444bd987fbe95c6554d4049a6a3b7b09b8",
    "models/Qwen__Qwen3-235B-A22B-Instruct-2507-FP8__lm-arena-chat.json": "b048fd5f0635d4cf3fee63300e7377082b8436f6e1eb77cf01ef5f816ea2a705",
    "models/Qwen__Qwen3-235B-A22B-Instruct-2507__lm-arena-chat.json": "3f074a3cc4abc394db71f140440f31c2d08e2838d30a290baa99396ffb8a2a08",
    "models/Qwen__Qwen3-235B-A22B-Thinking-2507-FP8__gpqa.json": "4f7193fc72893748b9deb29e7c0e415813c47f957da5745f23e0bdf3d03e9e09",
    "models/Qwen__Qwen3-235B-A22B-Thinking-2507__gpqa.json": "9218626b0dc6eaf99dc8a99d3242e67dbecaa15f35e18b877ac6ddca2530af26",
    "models/Qwen__Qwen3-32B__lm-arena-chat.json": "cc2ee97966d05837c5cf59c21e4d4f5825b5b938a71ab62d0a2a6038382e9eb1",
    "models/Qwen__Qwen3-8B__gpqa.json": "05244f6ebf5eea3b786c505f4da2530e1641bec2ef88accfb71819f65d188a93",
    "models/Qwen__Qwen3-8B__lm-arena-chat.json": "234266553646cebaee79af62ec1114b94c2473b15a92f8136f20a9c0ee6ddcbb",
    "models/Qwen__Qwen3-Coder-30B-A3B-Instruct__sourcegraph-fim.json": "345c2765c156148ee840785512bd2e111fb0195df14692a6c472b5012ca01cdd",
    "models/Qwen__Qwen3-Coder-480B-A35B-Instruct-FP8__sourcegraph-fim.json": "4f90c45524006514243f83a3a465204349bb31f94746cce951be04f86a496907",
    "models/Qwen__Qwen3-Coder-480B-A35B-Instruct__sourcegraph-fim.json": "4cb531c4180492a4fa1d195ff88f5afccc07807016987163848b975ab33f4eac",
    "models/Qwen__Qwen3-Omni-30B-A3B-Instruct__image-chat.json": "7c6d00f387fc6c694fe8d7d31ddea8f02be86236f36f766ac92c683ed1deed46",
    "models/Qwen__Qwen3-VL-235B-A22B-Instruct__image-chat.json": "cf37d5aff5c256d018d410f47f9800d2d8e6b82ad53bc0ae18027669b8c68312",
    "models/Qwen__Qwen3-VL-235B-A22B-Instruct__video-chat.json": "0b99d53515cb2fc896879d8e4efea14da7091dc5604d26717d5171a6ffba2187",
    "models/Qwen__Qwen3-VL-30B-A3B-Instruct__image-chat.json": "e51ac8f64c69887f12d265e7bb0302e48c292a9fdc107a5343930a860ed20f82",
    "models/Qwen__Qwen3-VL-30B-A3B-Instruct__video-chat.json": "9f3f7ca9ba083de49460218573f3162bbe68fa19048e05f9bb6a5a0ccb5ef168",
    "models/Qwen__Qwen3-VL-32B-Instruct__image-chat.json": "984b053f814953e3d828e790341d7d35fd71e66f7ad74ba8dd804cbf7126fb86",
    "models/Qwen__Qwen3-VL-32B-Instruct__video-chat.json": "c4966bf9790692e97463cafa785e3c3e08d7e2918afa6110aaa5b3311e70fa22",
    "models/Qwen__Qwen3-VL-8B-Instruct__image-chat.json": "414012d1df809bfbe700894d2c6843858780f0939e310ca06ba440d32aebf7b1",
    "models/Wan-AI__Wan2.1-T2V-14B-Diffusers__text-to-video.json": "6d448434f796e30bce81c878828c20410bb4e008ec7dce4b2ffbbd205553d320",
    "models/black-forest-labs__FLUX.1-dev__text-to-image.json": "5020ceb5839a4312788a4f049bddd5d7e76a6ccafc77add31ad5c62d6090148a",
    "models/deepseek-ai__DeepSeek-R1-0528__gpqa.json": "63ea496cc066401c50a13d293d746f6d5ed197774c39523182be3774ff490a90",
    "models/deepseek-ai__DeepSeek-V3.1__gpqa.json": "8c5d27eec8f671b56ad39d2029648b062312d07dfccf791261bf45e6fc397eb8",
    "models/deepseek-ai__DeepSeek-V3.1__lm-arena-chat.json": "15f5d693747fa1da47cc639403dddfa408af81e2cf215c304564b42ead28e6d0",
    "models/google__gemma-3-12b-it__image-chat.json": "07588412c8406d54da6afc12c4ccbca86c186e070c879a8d7c8b1fd26c4618cc",
    "models/google__gemma-3-12b-it__lm-arena-chat.json": "7af47e960e2da07a256c322d95e7c8b639a341ac5a85bfe7fda41ea3a02bc990",
    "models/meta-llama__Llama-3.1-405B-Instruct__lm-arena-chat.json": "c7f65b60ff90d88d9cf536f9602267435e758e2121e7dfca47bedddac669af71",
    "models/meta-llama__Llama-3.1-70B-Instruct__lm-arena-chat.json": "bafc501076c3ad0c28640d0be931983074e8c5f6da7ed93178cd8a9edfe2fc90",
    "models/meta-llama__Llama-3.1-8B-Instruct__lm-arena-chat.json": "3db897caac1af5057fe2915a85c27cccaa5d734362f4c745d6f499cc308c0fe3",
    "models/meta-llama__Llama-3.3-70B-Instruct__lm-arena-chat.json": "dd500d14d758b6e10731a6dd198a3de310c9874495b15811f160954ecc00d63c",
    "models/meta-llama__Llama-4-Maverick-17B-128E-Instruct-FP8__image-chat.json": "7e3706ff8623d63de2e11ca89de172aba0c8d096242aa0df98ac75f4628932bc",
    "models/meta-llama__Llama-4-Maverick-17B-128E-Instruct-FP8__lm-arena-chat.json": "b5a1c41a68de34e18a751949fa30bd92c9ed3e3f597bab699db1ecf514260fb9",
    "models/meta-llama__Llama-4-Scout-17B-16E-Instruct__image-chat.json": "75b4a05cea8c6b59c750bbe3d64dda35892cda84156c08e993fe126ec20653a6",
    "models/nvidia__NVIDIA-Nemotron-Nano-12B-v2__lm-arena-chat.json": "e393e5575a9e5f28dc35ae9413e29493a95ed8506bf0dfe01def0c17f79d2128",
    "models/nvidia__NVIDIA-Nemotron-Nano-9B-v2__gpqa.json": "41d03ce86e1751bf50dde3ce2ffc280300a89aab8366009245708641655329ba",
    "models/nvidia__NVIDIA-Nemotron-Nano-9B-v2__lm-arena-chat.json": "4869d5f9f7b065c9e51fb8b0c5a2d17591e214704418b612071354cef2dd044d",
    "models/openai__gpt-oss-120b__gpqa.json": "9bd3d26b095e57d8bb159359035e0f78a7461ad82074cd737ac294d55edd7c45",
    "models/openai__gpt-oss-20b__gpqa.json": "4686bcb7689dfa20b465451151c60bc1b83be827667e2ba75009b01e70c3c925",
    "models/stabilityai__stable-diffusion-3.5-large__text-to-image.json": "1fe3dd0c95b8f217dd99da156d6d05ee7cc56c999ea22ecc3cb99d02a5ffae3e",
    "models/stabilityai__stable-diffusion-3.5-medium__text-to-image.json": "bf0265e36070e4e218b68c5e26647c70596c67e132722da53e50efd524a1c83a",
}

MLENERGY_FILES: tuple[SourceFile, ...] = tuple(
    SourceFile(name, MLENERGY_URL.format(name=name), sha) for name, sha in _SHA256.items()
)
INDEX = "index.json"
MLENERGY_PATTERNS = (INDEX, "models/*.json")

# Model-level fields: file first, index.json as fallback (five files omit "architecture").
_MODEL_FIELDS = ("architecture", "weight_precision", "total_params_billions",
                 "activated_params_billions", "nickname")

# Configuration fields copied as they are; upstream names already carry units (avg_output_len
# is in tokens, batch_latency_s in seconds) except image/video sizes, which get a "_px" suffix.
_CONFIG_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("gpu_model", pa.string()),
    ("num_gpus", pa.int32()),
    # LLM / MLLM (vLLM)
    ("max_num_seqs", pa.int32()),
    ("avg_batch_size", pa.float64()),
    ("output_throughput_tokens_per_sec", pa.float64()),
    ("energy_per_token_joules", pa.float64()),
    ("energy_per_request_joules", pa.float64()),
    ("avg_power_watts", pa.float64()),
    ("median_itl_ms", pa.float64()),
    ("p90_itl_ms", pa.float64()),
    ("p95_itl_ms", pa.float64()),
    ("p99_itl_ms", pa.float64()),
    ("avg_output_len", pa.float64()),
    # diffusion (diffusers)
    ("batch_size", pa.int32()),
    ("batch_latency_s", pa.float64()),
    ("throughput_images_per_sec", pa.float64()),
    ("throughput_videos_per_sec", pa.float64()),
    ("energy_per_image_joules", pa.float64()),
    ("energy_per_video_joules", pa.float64()),
    ("inference_steps", pa.int32()),
    ("image_height_px", pa.int32()),
    ("image_width_px", pa.int32()),
    ("video_height_px", pa.int32()),
    ("video_width_px", pa.int32()),
    ("num_frames", pa.int32()),
    ("fps", pa.int32()),
)

# Parallelism degrees, from each configuration's "parallelization" object.
_PARALLEL_FIELDS = ("tensor_parallel", "data_parallel", "expert_parallel", "ring_degree",
                    "ulysses_degree")

SCHEMA = pa.schema(
    [("model_id", pa.string()), ("nickname", pa.string()), ("task", pa.string()),
     ("modality", pa.string()), ("architecture", pa.string()), ("weight_precision", pa.string()),
     ("total_params_billions", pa.float64()), ("activated_params_billions", pa.float64())]
    + list(_CONFIG_FIELDS)
    + [(f, pa.int32()) for f in _PARALLEL_FIELDS]
    + [("parallelization_notes", pa.string()), ("source_file", pa.string()),
       ("source_commit", pa.string())]
)


@dataclass(frozen=True)
class MLEnergyImport:
    """What one import read: the rows, the files they came from, and the files skipped."""

    table: pa.Table
    files: tuple[ImportedFile, ...]
    skipped: tuple[SkippedFile, ...]


def import_mlenergy(local_dir: Path | str | None = None, cache_dir: Path | str | None = None, *,
                    progress: bool = True, download: bool = True, warn: bool = True) -> MLEnergyImport:
    """One row per configuration of every model file of the source folder that parses.

    A model file that is not valid JSON or lacks model_id / task / configurations is skipped with
    one :class:`SkippedSourceFileWarning` line; so is an ``index.json`` that does not parse (the
    model files are read without it). A pinned file with other bytes than pinned is refused.
    """
    found = discover_source(MLENERGY_FILES, MLENERGY_PATTERNS, local_dir, cache_dir, subdir=MLENERGY_SUBDIR,
                            progress=progress, download=download)
    skipped: list[SkippedFile] = []
    files: list[ImportedFile] = []
    index_models: dict = {}
    modality_of: dict[str, str] = {}
    if INDEX in found.paths:
        try:
            index_models, modality_of = _read_index(found.paths[INDEX])
            files.append(ImportedFile(INDEX, found.sha256[INDEX]))
        except SourceFormatError as exc:
            skipped.append(SkippedFile(INDEX, str(exc)))
    elif found.folder is not None:
        skipped.append(SkippedFile(INDEX, "absent: modality is null for every row, model fields come "
                                          "from the model files only"))
    columns: dict[str, list] = {f.name: [] for f in SCHEMA}
    for name, path in found.paths.items():
        if name == INDEX:
            continue
        commit = MLENERGY_COMMIT if _SHA256.get(name) == found.sha256[name] else None
        part: dict[str, list] = {f.name: [] for f in SCHEMA}
        try:
            _read_model_file(path, name, index_models, modality_of, part, commit)
            pa.table(part, schema=SCHEMA)  # a value of the wrong type is this file's fault, not the import's
        except (SourceFormatError, UnicodeDecodeError, OSError, pa.ArrowException) as exc:
            skipped.append(SkippedFile(name, " ".join(str(exc).split())))
            continue
        for k, v in part.items():
            columns[k].extend(v)
        files.append(ImportedFile(name, found.sha256[name]))
    if warn:
        for s in skipped:
            warnings.warn(f"{MLENERGY_SUBDIR}: skipped {s.name}: {s.reason}", SkippedSourceFileWarning, stacklevel=2)
    return MLEnergyImport(pa.table(columns, schema=SCHEMA), tuple(files), tuple(skipped))


def load_mlenergy(local_dir: Path | str | None = None, cache_dir: Path | str | None = None,
                  *, progress: bool = True) -> pa.Table:
    """One row per configuration of every model file (LLM, MLLM and diffusion; see
    :func:`import_mlenergy`).

    ``modality`` ("llm" / "mllm" / "diffusion", from index.json's task grouping) tells which block
    of columns is populated; filter on it for an LLM-only table. ``architecture`` is upstream's
    label ("Dense Transformer", "MoE", "Mamba-Transformer Hybrid"), null for diffusion models.
    """
    return import_mlenergy(local_dir, cache_dir, progress=progress).table


def _read_index(path: Path) -> tuple[dict, dict[str, str]]:
    index = _read_json(path, INDEX)
    try:
        index_models: dict = index["models"]
        modality_of = {task: group for group, tasks in index["architectures"].items()
                       for task in tasks}
    except (KeyError, TypeError, AttributeError):
        raise SourceFormatError("index.json: expected 'models' and 'architectures' objects") from None
    if not isinstance(index_models, dict):
        raise SourceFormatError("index.json: 'models' is not an object")
    return index_models, modality_of


def _read_json(path: Path, name: str):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise SourceFormatError(f"{name}: not valid JSON ({e})") from None


def _read_model_file(path: Path, name: str, index_models: dict, modality_of: dict[str, str],
                     out: dict[str, list], commit: str | None) -> None:
    doc = _read_json(path, name)
    try:
        model_id, task, configs = doc["model_id"], doc["task"], doc["configurations"]
    except (KeyError, TypeError):
        raise SourceFormatError(f"{name}: expected model_id, task and configurations") from None
    if not isinstance(model_id, str) or not isinstance(task, str) or not isinstance(configs, list):
        raise SourceFormatError(f"{name}: model_id and task must be strings, configurations a list")
    meta = index_models.get(model_id) if isinstance(index_models.get(model_id), dict) else {}
    model = {k: doc.get(k, meta.get(k)) for k in _MODEL_FIELDS}
    for i, cfg in enumerate(configs):
        if not isinstance(cfg, dict):
            raise SourceFormatError(f"{name}: configuration {i} is not an object")
        par = cfg.get("parallelization") or {}
        if not isinstance(par, dict):
            raise SourceFormatError(f"{name}: configuration {i} has a parallelization that is not an object")
        row = {"model_id": model_id, "task": task, "modality": modality_of.get(task), **model}
        row.update({k: cfg.get(k.removesuffix("_px")) for k, _ in _CONFIG_FIELDS})
        row.update({k: par.get(k) for k in _PARALLEL_FIELDS})
        row["parallelization_notes"] = par.get("notes") or None
        row.update(source_file=name, source_commit=commit)
        for k, v in row.items():
            out[k].append(v)
