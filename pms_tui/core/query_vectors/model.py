"""The bundled model's query vector without importing fastembed: a one-shot search's fast path.

Importing fastembed costs about 0.45 s of CPU before anything is embedded: its package
``__init__`` imports every model family it has (images with Pillow, sparse, late interaction)
and its model management imports huggingface_hub, requests, httpx, loguru and tqdm at module
level (``python -X importtime``); none of its submodules can be imported without that. A
one-shot `pms-tui search` needs one query vector from the bundled model, whose files are on
disk (``bundled_model_dir``), so its helper process runs the same ONNX file with the same
tokenizer settings through onnxruntime and tokenizers (the libraries fastembed itself runs)
and pools the way fastembed does for this model: mean over the real tokens, then L2
normalisation. ``tests/test_query_model.py`` checks the vectors against fastembed's.
Everything else (documents, the app, the MCP server, any other model) embeds with fastembed.

The ONNX session is opened from a copy of the model that ONNX Runtime has already optimised
(``SessionOptions.optimized_model_filepath``, written once beside the model folder at the
``EXTENDED`` level, which holds no machine-specific layout) with graph optimisation off: the
same graph fastembed's session runs, opened in about a third of the time. The copy is keyed by
the model file and the onnxruntime version; if it cannot be written or read, the original
model is opened as fastembed opens it; a copy that cannot be read is written again. The copy
takes 90 MB (the int8 model is 23 MB: the optimiser stores some weights dequantised), one per
window size (``max_tokens``), in the model cache folder (``~/.cache/pms-tui/models/optimized``
on Linux); deleting it is safe, and a copy for an older key is deleted once it is a week old
(``drop_stale_copies``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

_FILE = "model.onnx"
# A copy written for another key (an older install of the model or of onnxruntime) is deleted
# when a new one is written, once it is this old: every reinstall (a new file time) wrote
# another 90 MB copy before, and two installs in use side by side must not delete each
# other's copy on every start.
STALE_SECONDS = 7 * 86400


def drop_stale_copies(directory: Path, prefix: str, keep: Path) -> None:
    """Delete the files ``prefix`` + a key (which starts with a digit: ``minilm-int8-256-``
    never matches ``minilm-int8-256-other-...``) in ``directory``, other than ``keep``, not
    written for ``STALE_SECONDS``; a file that cannot be deleted stays."""
    import time

    limit = time.time() - STALE_SECONDS
    try:
        for path in directory.glob(f"{prefix}[0-9]*"):
            if path != keep and path.is_file() and path.stat().st_mtime < limit:
                path.unlink(missing_ok=True)
    except OSError:
        pass


def _optimized_path(folder: Path) -> Path:
    import onnxruntime as ort

    model = (folder / _FILE).resolve()
    stat = model.stat()
    key = f"{stat.st_size}-{int(stat.st_mtime)}-ort{ort.__version__}"
    return folder.parent / "optimized" / f"{folder.name}-{key}.onnx"


def _session(folder: Path):
    """An ONNX session of the folder's model on one thread, as fastembed opens it (threads=1)."""
    import onnxruntime as ort

    def options(level):
        so = ort.SessionOptions()
        so.graph_optimization_level = level
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        return so

    providers = ["CPUExecutionProvider"]
    try:
        optimized = _optimized_path(folder)
        if optimized.is_file():
            try:
                return ort.InferenceSession(str(optimized), options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
                                            providers=providers)
            except Exception:  # noqa: BLE001 - a damaged copy (a full disk, a kill): written again
                optimized.unlink(missing_ok=True)
        optimized.parent.mkdir(parents=True, exist_ok=True)
        tmp = optimized.with_name(f".{optimized.name}.{os.getpid()}.tmp")
        so = options(ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)
        so.optimized_model_filepath = str(tmp)
        session = ort.InferenceSession(str(folder / _FILE), so, providers=providers)
        os.replace(tmp, optimized)  # whole or not at all: two searches may write it at once
        drop_stale_copies(optimized.parent, f"{folder.name}-", optimized)
        return session
    except Exception:  # noqa: BLE001 - a read-only cache, a damaged copy: opened as fastembed opens it
        return ort.InferenceSession(str(folder / _FILE), options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                                    providers=providers)


def _tokenizer(folder: Path):
    """The folder's tokenizer with fastembed's settings (``load_tokenizer``): truncation at the
    config's ``model_max_length``, the special tokens added, padding to the longest text."""
    from tokenizers import Tokenizer

    config = json.loads((folder / "tokenizer_config.json").read_text())
    specials = json.loads((folder / "special_tokens_map.json").read_text())
    model_config = json.loads((folder / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(max_length=int(config["model_max_length"]),
                                direction=config.get("truncation_side") or truncation.get("direction", "right"))
    tokenizer.add_special_tokens([t for t in specials.values() if isinstance(t, str)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or config["pad_token"]
    pad_id = padding.get("pad_id", model_config.get("pad_token_id"))
    tokenizer.enable_padding(direction=config.get("padding_side") or padding.get("direction", "right"),
                             pad_id=tokenizer.token_to_id(pad_token) if pad_id is None else pad_id,
                             pad_type_id=padding.get("pad_type_id", 0), pad_token=pad_token,
                             pad_to_multiple_of=padding.get("pad_to_multiple_of"), length=None)
    return tokenizer


def embed_query(text: str, folder: Path):
    """The float32 unit vector of ``text`` by the model in ``folder`` (``bundled_model_dir``)."""
    import numpy as np

    encoding = _tokenizer(folder).encode(text)
    session = _session(folder)
    ids = np.array([encoding.ids], dtype=np.int64)
    mask = np.array([encoding.attention_mask], dtype=np.int64)
    feed = {"input_ids": ids}
    names = {node.name for node in session.get_inputs()}
    if "attention_mask" in names:
        feed["attention_mask"] = mask
    if "token_type_ids" in names:
        feed["token_type_ids"] = np.zeros_like(ids)
    output = session.run(None, feed)[0]
    pooled = np.sum(output, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = pooled / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    pooled = pooled / np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
    return pooled.astype(output.dtype, copy=False)[0]
