"""The shipped MiniLM with integer matrix products: derived once, cached in the user cache dir.

The shipped ``model.onnx`` stores its weights as int8 plus a scale per output column, but as
``Cast`` and ``Mul`` in front of each float ``MatMul``: ONNX Runtime folds them back to
float32 at load, so every product runs in float. The derived file keeps those int8 weights
and their scales as they are and feeds each ``MatMul`` on weights (36 of 48; attention's two
products per layer multiply activations) integers instead:

    s = max|x| / 127, per row of x (one token)        q = Round(x / s) + 128, as uint8
    y = Cast(MatMulInteger(q, W_int8, 128), float) * s * w_scale

Each token is quantized on its own, so a text's vector does not depend on the texts embedded
with it (``quantize_dynamic`` takes one scale for the whole batch, padding included: its
vectors moved by up to 0.007 in cosine with the batch), and it keeps closer to the float
products (real chunks: mean cosine 0.999 with the shipped model's vectors; research/int8/).
The shift by 128 to uint8 is what ONNX Runtime's fast u8 x s8 kernels take.

The file (23 MB) is keyed by the source file's sha256, the recipe and the ONNX Runtime version,
and written atomically (temp file + rename): two processes may derive it at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from ..errors import EmbeddingModelError

RECIPE = "per-row symmetric uint8 activations (zero point 128) x shipped int8 weights, v1"
_PREFIX = "minilm-matmulinteger-"  # + the key + .onnx (the model) or .size (its size when written)
_derive_lock = threading.Lock()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _weight_products(graph) -> list[tuple]:
    """(Cast, Mul, MatMul, int8 weight, its scale) for each ``MatMul`` on a shipped weight."""
    from onnx import TensorProto

    inits = {i.name: i for i in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    found = []
    for cast in graph.node:
        weight = inits.get(cast.input[0]) if cast.op_type == "Cast" else None
        if weight is None or weight.data_type != TensorProto.INT8:
            continue
        muls = consumers.get(cast.output[0], [])
        if len(muls) != 1 or muls[0].op_type != "Mul":
            continue
        scale = next((i for i in muls[0].input if i != cast.output[0]), None)
        users = consumers.get(muls[0].output[0], [])
        if (scale in inits and len(users) == 1 and users[0].op_type == "MatMul"
                and users[0].input[1] == muls[0].output[0]):
            found.append((cast, muls[0], users[0], weight.name, scale))
    return found


def integer_products(model) -> int:
    """Rewrite ``model`` (an onnx ModelProto) in place as the module says; returns how many
    products were rewritten."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    products = _weight_products(graph)
    constants = {"i8_inv127": np.float32(1 / 127), "i8_eps": np.float32(1e-12),
                 "i8_128f": np.float32(128), "i8_zero_point": np.uint8(128)}
    graph.initializer.extend(numpy_helper.from_array(np.array(v), k) for k, v in constants.items())
    replaced: dict[int, list] = {}
    dropped: set[int] = set()
    for n, (cast, mul, matmul, weight, scale) in enumerate(products):
        x, out, p = matmul.input[0], matmul.output[0], f"i8_{n}_"
        replaced[id(matmul)] = [
            helper.make_node("Abs", [x], [p + "abs"]),
            helper.make_node("ReduceMax", [p + "abs"], [p + "max"], axes=[-1], keepdims=1),
            helper.make_node("Max", [p + "max", "i8_eps"], [p + "max_pos"]),
            helper.make_node("Mul", [p + "max_pos", "i8_inv127"], [p + "s"]),
            helper.make_node("Div", [x, p + "s"], [p + "xs"]),
            helper.make_node("Round", [p + "xs"], [p + "xr"]),
            helper.make_node("Add", [p + "xr", "i8_128f"], [p + "xu"]),
            helper.make_node("Cast", [p + "xu"], [p + "q"], to=TensorProto.UINT8),
            helper.make_node("MatMulInteger", [p + "q", weight, "i8_zero_point"], [p + "yi"]),
            helper.make_node("Cast", [p + "yi"], [p + "yf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "yf", p + "s"], [p + "ys"]),
            helper.make_node("Mul", [p + "ys", scale], [out]),
        ]
        dropped.update({id(cast), id(mul)})
    nodes = [new for node in graph.node if id(node) not in dropped for new in replaced.get(id(node), [node])]
    del graph.node[:]
    graph.node.extend(nodes)
    return len(products)


def derive(source: Path, target: Path) -> None:
    """Write the integer-product model derived from ``source`` to ``target`` (not atomic)."""
    import onnx

    model = onnx.load(str(source))
    if integer_products(model) == 0:
        raise ValueError("it has no int8 weights feeding a MatMul")
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def derived_model(source: Path, cache_dir: Path, *, rebuild: bool = False) -> Path:
    """The integer-product model derived from ``source``, built once into ``cache_dir``
    (``rebuild``: again, e.g. when ONNX Runtime could not load the one there).

    A file whose size is not the one recorded when it was written (a disk filled up, a copy
    cut short) is built again. Raises EmbeddingModelError with one sentence if the derivation
    fails."""
    try:
        import onnxruntime

        key_text = json.dumps([_source_digest(source, cache_dir), RECIPE, onnxruntime.__version__])
        key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
        target = cache_dir / f"{_PREFIX}{key}.onnx"
        stamp = target.with_suffix(".size")
        if not rebuild and _intact(target, stamp):
            return target
        with _derive_lock:
            if not rebuild and _intact(target, stamp):
                return target
            tmp = _temp_name(target)
            try:
                derive(source, tmp)
                size = tmp.stat().st_size
                os.replace(tmp, target)
                _write_atomic(stamp, str(size))
            finally:
                tmp.unlink(missing_ok=True)
            _drop_stale(cache_dir, keep=(target, stamp))
        return target
    except Exception as exc:  # onnx / onnxruntime.quantization / the file system raise many kinds
        raise EmbeddingModelError(
            f"The integer version of the bundled embedding model could not be built in {cache_dir} "
            f"({type(exc).__name__}: {str(exc)[:200]}); search by words still works."
        ) from None


def _drop_stale(cache_dir: Path, keep: tuple[Path, ...]) -> None:
    """Delete the files derived for other keys (an older install of the model or of ONNX
    Runtime), once a week old: two installs in use side by side keep theirs."""
    import time

    from .query_model import STALE_SECONDS

    limit = time.time() - STALE_SECONDS
    for path in cache_dir.glob(f"{_PREFIX}*"):
        try:
            if path not in keep and path.stat().st_mtime < limit:
                path.unlink(missing_ok=True)
        except OSError:
            pass


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _write_atomic(path: Path, text: str) -> None:
    tmp = _temp_name(path)
    tmp.write_text(text)
    os.replace(tmp, path)


def _intact(target: Path, stamp: Path) -> bool:
    try:
        return int(stamp.read_text()) == target.stat().st_size
    except (OSError, ValueError):
        return False


def _source_digest(source: Path, cache_dir: Path) -> str:
    """The sha256 of ``source``, remembered by its path, size and time in ``cache_dir``: the
    key of the derived file is checked on every model load (and by a one-shot search's helper
    process), and hashing 23 MB each time costs 20 ms or more."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    info = source.stat()
    mark = f"{source.resolve()}|{info.st_size}|{info.st_mtime_ns}"
    memo = cache_dir / "source-sha256.json"
    try:
        known = json.loads(memo.read_text())
        if isinstance(known, dict) and isinstance(known.get(mark), str):
            return known[mark]
    except (OSError, ValueError):
        pass
    digest = _sha256(source)
    _write_atomic(memo, json.dumps({mark: digest}))
    return digest
