"""The throughput runner's accounting (benchmarks/throughput.py): the union of run intervals,
the model's multiply-adds of padded calls, and the rows it prints beside their targets."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import throughput  # noqa: E402


def test_runs_in_flight_is_the_union_of_their_intervals():
    assert throughput._busy([(0, 2), (1, 3), (5, 6)]) == 4  # two overlapping runs count once
    assert throughput._busy([]) == 0


def test_multiply_adds_count_padding_and_attention():
    one = throughput._macs([[10]])
    assert one == 10 * (throughput._LINEAR_MACS + throughput._ATTENTION_MACS * 10)
    assert throughput._macs([[10, 20]]) == 2 * 20 * (throughput._LINEAR_MACS + throughput._ATTENTION_MACS * 20)
    assert throughput._macs([[10], [20]]) < throughput._macs([[10, 20]])  # sorting saves the padding


def test_rows_put_each_figure_beside_its_target():
    tp = {"notes": 2, "chunks": 100, "seconds": 10.0, "naive_texts": 100, "naive_seconds": 15.0,
          "cpu_seconds": 8.0, "naive_cpu_seconds": 20.0, "naive_tokens": 500, "naive_padded_tokens": 700,
          "pipeline_texts": 100, "pipeline_tokens": 500, "pipeline_padded_tokens": 510, "naive_macs": 13.0,
          "pipeline_macs": 10.0, "unpadded_macs": 9.9, "text_seconds": 0.5, "embed_phase_seconds": 9.5,
          "rest_seconds": 0.0, "runs_in_flight_seconds": 9.0, "embed_seconds": 18.0, "workers": 2,
          "run_cpu_seconds": 7.6}
    rows = {name.split(",")[0].split(" (")[0]: (value, met) for name, value, _, met, _ in throughput.rows(tp)}
    assert rows["indexing throughput"] == ("10.0 chunks/s = 1.50 × naive", False)
    assert rows["CPU per chunk: pipeline / naive"] == ("80 / 200 ms (2.50 ×)", True)
    assert rows["tokens embedded: naive real / padded; pipeline real / padded"][1] is True
    assert rows["share of the sync's wall time: text"] == ("5.0 %", True)
    assert rows["run slots busy during the embedding phase"][0] == "94.7 %"
