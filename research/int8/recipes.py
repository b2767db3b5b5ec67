"""Two ways to give the shipped MiniLM integer matrix products, side by side.

* ``dynamic``: the weights folded back to float, then
  ``onnxruntime.quantization.quantize_dynamic(op_types_to_quantize=["MatMul"], weight_type=QInt8,
  per_channel=...)``: one uint8 scale per MatMul input for the whole batch (padding included).
* ``per_row``: the product's recipe (``pms_tui.core.indexing.model_int8``): the shipped int8
  weights as they are, each token's activations on their own scale.

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
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA", "/work/shared/corpora"))


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

    from pms_tui.core.indexing.embed import SHIPPED_MODEL, bundled_model_dir
    from pms_tui.core.indexing.model_int8 import derive

    folder = bundled_model_dir(256, SHIPPED_MODEL)
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
        recipes["per_row (product)"] = Path(tmp) / "per-row.onnx"
        derive(shipped, recipes["per_row (product)"])
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
