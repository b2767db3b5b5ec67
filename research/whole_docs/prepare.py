"""Write the two extra test collections of the whole-document study in BEIR's layout.

    python research/whole_docs/prepare.py nfcorpus RAW_DIR [OUT]   # default OUT ~/.cache/pms-tui-eval/nfcorpus-orig
    python research/whole_docs/prepare.py cisi RAW_DIR [OUT]       # default OUT ~/.cache/pms-tui-eval/cisi

Nothing here is fetched or committed: RAW_DIR holds files taken from public repositories
(with the search tool's ``fetch``, or ``git show`` from a clone), at the commits named below.

* ``nfcorpus`` -- NFCorpus as its original release has it (Boteva et al., ECIR 2016):
  ``test.docs`` and ``dev.docs`` (``DOCID<TAB>text``: title and abstract lowercased, stop
  words and numbers removed) from hakimamarullah/medisearch-api@0ae71a4b (``data/nfcorpus``),
  saved as ``nf.test.docs`` / ``nf.dev.docs``; BEIR's 323 test topics and qrels from
  castorini/anserini-tools@5b819c1a (``topics/topics.beir-v1.0.0-nfcorpus.test.tsv.gz``,
  ``qrels/qrels.beir-v1.0.0-nfcorpus.test.txt``), saved as ``nf.topics.tsv.gz`` /
  ``nf.qrels.txt``. 3,395 documents (BEIR has 3,633; every judged one is here).
* ``cisi`` -- the CISI collection (1,460 library-science abstracts, 112 queries, 76 judged;
  Glasgow IR group's classic test collections): ``CISI.ALL``, ``CISI.QRY``, ``CISI.REL`` from
  Shakiba-Alipour/Information-Retrieval-on-CISI@7a23c346. Each abstract (``.W``, wrapped
  over lines) becomes one paragraph, as BEIR's corpora have it; ``.T`` is the title.

The output folder gets ``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv`` (BEIR's files)
and a ``README.txt`` saying what they are; ``pms-tui eval beir OUT`` reads it.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

DEFAULT_OUT = Path.home() / ".cache" / "pms-tui-eval"


def _write(out: Path, docs: list[dict], queries: dict[str, str], qrels: list[tuple[str, str, int]],
           readme: str) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as handle:
        for doc in docs:
            handle.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as handle:
        for qid, text in queries.items():
            handle.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
    with open(out / "qrels" / "test.tsv", "w", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for qid, doc, grade in qrels:
            handle.write(f"{qid}\t{doc}\t{grade}\n")
    judged = len({q for q, _, _ in qrels})
    (out / "README.txt").write_text(
        f"{readme}\n\n{len(docs)} documents, {len(queries)} queries ({judged} judged), "
        f"{len(qrels)} judgments.\nMade by pms-tui's research/whole_docs/prepare.py; not part of any repository.\n")
    print(f"{out}: {len(docs)} documents, {len(queries)} queries, {judged} judged", file=sys.stderr)


def nfcorpus(raw: Path, out: Path) -> None:
    docs: dict[str, str] = {}
    for name in ("nf.test.docs", "nf.dev.docs"):
        for line in (raw / name).read_text(encoding="utf-8").splitlines():
            doc_id, _, text = line.partition("\t")
            if doc_id.strip() and text.strip():
                docs.setdefault(doc_id.strip(), " ".join(text.split()))
    with gzip.open(raw / "nf.topics.tsv.gz", "rt", encoding="utf-8") as handle:
        queries = dict(line.rstrip("\n").split("\t", 1) for line in handle if "\t" in line)
    qrels = []
    for line in (raw / "nf.qrels.txt").read_text().splitlines():
        qid, _, doc, grade = line.split()
        if doc in docs and int(grade) > 0:
            qrels.append((qid, doc, int(grade)))
    _write(out, [{"_id": d, "title": "", "text": t} for d, t in docs.items()], queries, qrels,
           "NFCorpus, original release text (lowercased, stop words and numbers removed) with BEIR's "
           "test topics and qrels: hakimamarullah/medisearch-api@0ae71a4b data/nfcorpus/{test,dev}.docs; "
           "castorini/anserini-tools@5b819c1a topics/qrels beir-v1.0.0-nfcorpus.test. "
           "Not BEIR's NFCorpus text, so BEIR's published figures do not apply.")


_FIELD = re.compile(r"^\.([A-Z])\s*(.*)$")


def _records(path: Path) -> list[dict[str, str]]:
    """SMART-format records: ``.I n`` then fields ``.T``/``.A``/``.W``/``.X``/``.B``."""
    records: list[dict[str, str]] = []
    field = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _FIELD.match(line)
        if m and m.group(1) == "I":
            records.append({"I": m.group(2).strip()})
            field = None
        elif m and len(line.split()[0]) == 2:
            field = m.group(1)
            records[-1].setdefault(field, "")
            if m.group(2).strip():
                records[-1][field] += " " + m.group(2)
        elif field and records:
            records[-1][field] += " " + line
    return [{k: " ".join(v.split()) for k, v in r.items()} for r in records]


def cisi(raw: Path, out: Path) -> None:
    docs = [{"_id": r["I"], "title": r.get("T", ""), "text": r.get("W", "")} for r in _records(raw / "CISI.ALL")]
    queries = {r["I"]: r.get("W", "") or r.get("T", "") for r in _records(raw / "CISI.QRY")}
    seen, qrels = set(), []
    for line in (raw / "CISI.REL").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and (parts[0], parts[1]) not in seen:
            seen.add((parts[0], parts[1]))
            qrels.append((parts[0], parts[1], 1))
    _write(out, docs, queries, qrels,
           "CISI (1,460 library-science abstracts, each one paragraph; title as .T), queries and binary "
           "judgments: Shakiba-Alipour/Information-Retrieval-on-CISI@7a23c346 CISI.ALL/QRY/REL.")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("nfcorpus", "cisi"):
        print(__doc__, file=sys.stderr)
        return 2
    which, raw = argv[0], Path(argv[1]).expanduser()
    out = Path(argv[2]).expanduser() if len(argv) > 2 else DEFAULT_OUT / ("nfcorpus-orig" if which == "nfcorpus" else "cisi")
    if not raw.is_dir():
        print(f"{raw} is not a folder.", file=sys.stderr)
        return 2
    (nfcorpus if which == "nfcorpus" else cisi)(raw, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
