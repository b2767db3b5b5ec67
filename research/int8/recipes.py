"""Two ways to give the shipped MiniLM integer matrix products, side by side.

* ``dynamic``: the weights folded back to float, then
  ``onnxruntime.quantization.quantize_dynamic(op_types_to_quantize=["MatMul"], weight_type=QInt8,
  per_channel=...)``: one uint8 scale per MatMul input for the whole batch (padding included).
* ``per_token``: the shipped int8 weights as they are (with their per-column scales), each
  token's activations on their own symmetric scale, shifted to uint8 around 128 (the form ONNX
  Runtime's fast u8 x s8 kernels take); attention's two activation products stay float:

      s = max|x| / 127 per row of x        q = Round(x / s) + 128, as uint8
      y = Cast(MatMulInteger(q, W_int8, 128), float) * s * w_scale

For each: CPU seconds for 64 jbranchaud-til notes in batches of 16 (one thread, tokenised
as the product does, mean pooling, L2), the cosine with the shipped model's vectors, and the
cosine between a text embedded in its batch and alone.

    python research/int8/recipes.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or ROOT.parent / "shared" / "corpora")  # as benchmarks/corpora.py


def fold_int8_weights(model) -> int:
    """Replace each ``Cast(int8 initializer) -> Mul(scale)`` by its float32 result, in place
    (quantize_dynamic only quantizes a MatMul whose weight is an initializer)."""
    import numpy as np
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    dropped, new_inits = set(), []
    for node in graph.node:
        source = inits.get(node.input[0]) if node.op_type == "Cast" else None
        if source is None or source.data_type != TensorProto.INT8:
            continue
        (mul,) = consumers[node.output[0]]
        scale = next(i for i in mul.input if i != node.output[0])
        weight = numpy_helper.to_array(source).astype(np.float32) * numpy_helper.to_array(inits[scale])
        new_inits.append(numpy_helper.from_array(weight.astype(np.float32), mul.output[0]))
        dropped.update({id(node), id(mul)})
    kept = [n for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(new_inits)
    return len(new_inits)


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
    """Rewrite ``model`` (an onnx ModelProto) in place: each MatMul on a shipped int8 weight
    becomes the per-token integer product of the module's docstring; returns how many."""
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


def per_token(source: Path, target: Path) -> None:
    import onnx

    model = onnx.load(str(source))
    assert integer_products(model) == 36
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def dynamic(source: Path, target: Path, per_channel: bool = True, reduce_range: bool = False) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source))
    fold_int8_weights(model)
    logging.getLogger().setLevel(logging.ERROR)  # its "consider pre-processing" advice
    quantize_dynamic(model, str(target), op_types_to_quantize=["MatMul"], per_channel=per_channel,
                     reduce_range=reduce_range, weight_type=QuantType.QInt8)


def main() -> None:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from pms_tui.core.indexing.embed import bundled_model_dir

    folder = bundled_model_dir(256)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding()
    files = sorted((CORPORA / "markdown" / "jbranchaud-til").glob("*/*.md"))[:64]
    texts = [f.read_text(encoding="utf-8")[:4096] for f in files]

    def run(path: Path):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

        def embed(batch):
            enc = tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in enc])
            mask = np.array([e.attention_mask for e in enc])
            out = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (out * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

        embed(texts[:4])
        cpu = time.process_time()
        batched = np.concatenate([embed(texts[i : i + 16]) for i in range(0, len(texts), 16)])
        cpu = time.process_time() - cpu
        alone = np.concatenate([embed([t]) for t in texts[:16]])
        return batched, alone, cpu

    with tempfile.TemporaryDirectory() as tmp:
        shipped = folder / "model.onnx"
        recipes = {"shipped": shipped}
        for per_channel in (True, False):
            recipes[f"dynamic per_channel={per_channel}"] = Path(tmp) / f"dynamic-{per_channel}.onnx"
            dynamic(shipped, recipes[f"dynamic per_channel={per_channel}"], per_channel)
        recipes["dynamic reduce_range"] = Path(tmp) / "dynamic-rr.onnx"
        dynamic(shipped, recipes["dynamic reduce_range"], True, True)
        recipes["per_token"] = Path(tmp) / "per-token.onnx"
        per_token(shipped, recipes["per_token"])
        base, _, base_cpu = run(shipped)
        print(f"{'recipe':28} {'CPU s':>6} {'x':>5} {'cos mean':>9} {'cos min':>8} {'batch/alone min':>15}")
        for name, path in recipes.items():
            batched, alone, cpu = run(path)
            cos = (batched * base).sum(1)
            steady = (batched[:16] * alone).sum(1)
            print(f"{name:28} {cpu:6.2f} {base_cpu / cpu:5.2f} {cos.mean():9.4f} {cos.min():8.4f} {steady.min():15.4f}")
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
