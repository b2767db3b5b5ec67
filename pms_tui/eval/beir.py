"""``pms-tui eval beir DIR``: a BEIR-style test collection through the product's search.

DIR holds (found by pattern):

- the corpus: ``corpus.jsonl.gz`` or ``corpus.jsonl``, lines ``{"_id", "title", "text"}``;
- the topics: ``*.tsv.gz`` / ``*.tsv`` with ``qid<TAB>query`` lines (or BEIR's own
  ``queries.jsonl`` with ``{"_id", "text"}``);
- the qrels: a file named ``qrels*`` (or ``qrels/test.tsv``) with TREC lines
  ``qid 0 docid rel`` (or BEIR's ``query-id<TAB>corpus-id<TAB>score`` with a header).

When several files match, the one with "test" in its name wins. Every document becomes a
Markdown note ``# title`` + blank line + text, named by a reversible safe encoding of its id,
and the folder is indexed by the real KnowledgeBase in a cached throwaway home.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.config import Settings
from ..core.kb import KnowledgeBase
from . import harness, metrics

NOTE_FORMAT = 1  # bump when note_text / note_name change: the cache key includes it
_SAFE = re.compile(r"[A-Za-z0-9_-]")
_MAX_NAME = 150


class BeirError(ValueError):
    """The collection folder cannot be read, said in one sentence."""


@dataclass
class BeirFiles:
    corpus: Path
    topics: Path
    qrels: Path


def _open_text(path: Path) -> io.TextIOBase:
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _pick(candidates: list[Path], what: str, folder: Path) -> Path:
    candidates = sorted(set(candidates))
    if len(candidates) > 1:
        tests = [p for p in candidates if "test" in p.name.lower()]
        if len(tests) == 1:
            return tests[0]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise BeirError(f"No {what} file found in {folder}.")
    names = ", ".join(p.name for p in candidates)
    raise BeirError(f"Several {what} files in {folder} ({names}); keep one or name one 'test'.")


def discover(folder: str | os.PathLike) -> BeirFiles:
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise BeirError(f"{root} is not a folder.")
    files = [p for p in root.iterdir() if p.is_file()]
    qrels_dir = root / "qrels"
    corpus = [p for p in files if p.name in ("corpus.jsonl.gz", "corpus.jsonl")]
    qrels = [p for p in files if p.name.lower().startswith("qrels")]
    if not qrels and qrels_dir.is_dir():
        qrels = [p for p in qrels_dir.iterdir() if p.is_file() and p.suffix in (".tsv", ".txt")]
    topics = [
        p for p in files
        if (p.name.endswith((".tsv", ".tsv.gz")) and not p.name.lower().startswith("qrels"))
        or p.name in ("queries.jsonl", "queries.jsonl.gz")
    ]
    return BeirFiles(_pick(corpus, "corpus.jsonl(.gz)", root), _pick(topics, "topics", root),
                     _pick(qrels, "qrels", root))


def read_corpus(path: Path) -> Iterator[tuple[str, str, str]]:
    """(doc id, title, text) of every corpus line."""
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                yield str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or "")
            except (ValueError, KeyError, TypeError):
                raise BeirError(f"{path.name} line {number} is not a corpus record with an _id.") from None


def read_topics(path: Path) -> dict[str, str]:
    """qid -> query text, in file order."""
    topics: dict[str, str] = {}
    with _open_text(path) as handle:
        jsonl = ".jsonl" in path.name
        for line in handle:
            if not line.strip():
                continue
            if jsonl:
                row = json.loads(line)
                topics[str(row["_id"])] = str(row.get("text") or "")
            else:
                qid, sep, text = line.rstrip("\n").partition("\t")
                if sep:
                    topics[qid.strip()] = text.strip()
    if not topics:
        raise BeirError(f"{path.name} holds no queries (expected qid<TAB>query lines).")
    return topics


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """qid -> {doc id: grade}. TREC ``qid iter docid rel`` or BEIR ``qid docid score``."""
    qrels: dict[str, dict[str, int]] = {}
    with _open_text(path) as handle:
        for line in handle:
            parts = line.rstrip("\r\n").split("\t") if "\t" in line else line.split()
            parts = [p.strip() for p in parts]
            if len(parts) == 4:
                qid, _, doc_id, grade = parts
            elif len(parts) == 3:
                qid, doc_id, grade = parts
            else:
                continue
            try:
                value = int(float(grade))
            except ValueError:  # a header line
                continue
            qrels.setdefault(qid, {})[doc_id] = value
    if not qrels:
        raise BeirError(f"{path.name} holds no judgments (expected 'qid 0 docid rel' lines).")
    return qrels


def note_name(doc_id: str) -> str:
    """A safe, reversible file name: [A-Za-z0-9_-] kept, every other byte as %XX.

    No leading dot (dot-files are not notes), no separators; an over-long id keeps a prefix
    and a hash (the id map in the cache still maps it back).
    """
    encoded = "".join(c if _SAFE.fullmatch(c) else "".join(f"%{b:02X}" for b in c.encode()) for c in doc_id)
    if not encoded:
        encoded = "%00"
    if len(encoded) > _MAX_NAME:
        encoded = encoded[:100] + "~" + hashlib.sha256(doc_id.encode()).hexdigest()[:16]
    return encoded + ".md"


def note_text(title: str, text: str) -> str:
    title = " ".join(title.split())
    body = text.strip()
    return f"# {title}\n\n{body}\n" if title else f"{body}\n"


def write_notes(corpus: Path, notes: Path, key_dir: Path) -> dict[str, str]:
    """Write every document as a note (once) and return {relpath: doc id}."""
    id_map = key_dir / "docids.json"
    if id_map.exists():
        return json.loads(id_map.read_text())
    notes.mkdir(parents=True, exist_ok=True)
    mapping: dict[str, str] = {}
    for doc_id, title, text in read_corpus(corpus):
        name = note_name(doc_id)
        if name in mapping:
            raise BeirError(f"Two documents map to the note name {name} ({mapping[name]!r}, {doc_id!r}).")
        mapping[name] = doc_id
        (notes / name).write_text(note_text(title, text), encoding="utf-8")
    tmp = id_map.with_name("docids.json.tmp")
    tmp.write_text(json.dumps(mapping))
    os.replace(tmp, id_map)
    return mapping


@dataclass
class Prepared:
    files: BeirFiles
    topics: dict[str, str]
    qrels: dict[str, dict[str, int]]
    mapping: dict[str, str]
    kb: KnowledgeBase
    build: harness.BuildInfo


def prepare(folder: str | os.PathLike, settings: Settings | None = None, *, quiet: bool = False) -> Prepared:
    """Read the collection and open (building once) its cached index."""
    files = discover(folder)
    topics = read_topics(files.topics)
    qrels = read_qrels(files.qrels)
    settings = settings or harness.eval_settings()
    with open(files.corpus, "rb") as handle:
        corpus_hash = hashlib.file_digest(handle, "sha256").hexdigest()
    content = f"beir{NOTE_FORMAT}:{corpus_hash}"
    key = harness.index_key("beir", content, settings)
    key_dir = harness.cache_root() / key
    key_dir.mkdir(parents=True, exist_ok=True)
    notes = key_dir / "notes"
    mapping = write_notes(files.corpus, notes, key_dir)
    kb, build = harness.open_index(key_dir, notes, settings, quiet=quiet)
    return Prepared(files, topics, qrels, mapping, kb, build)


def evaluate(
    folder: str | os.PathLike,
    modes: list[str],
    *,
    limit: int | None = None,
    depth: int = 300,
    settings: Settings | None = None,
    quiet: bool = False,
) -> dict:
    """Run the judged queries in every mode; the report as a JSON-ready dict."""
    prep = prepare(folder, settings, quiet=quiet)
    kb = prep.kb
    try:
        judged = set(metrics.judged_queries(prep.qrels))
        queries = [(q, t) for q, t in prep.topics.items() if q in judged]
        if limit is not None:
            queries = queries[: max(0, limit)]
        mapping = prep.mapping
        doc_of = lambda hit: mapping.get(hit.relpath)  # noqa: E731
        results: dict[str, dict] = {}
        ndcg: dict[str, dict[str, float]] = {}
        for mode in modes:
            if not quiet:
                print(f"[eval] {mode}: {len(queries)} queries ...", file=sys.stderr, flush=True)
            mr = harness.run_mode(kb, queries, mode, doc_of, depth=depth, exclude_self=True)
            each = metrics.per_query(mr.run, prep.qrels, [q for q, _ in queries])
            ndcg[mode] = {q: s["ndcg@10"] for q, s in each.items()}
            scores = metrics.mean_scores(each)
            results[mode] = {
                **{name: round(value, 4) for name, value in scores.items()},
                "median_ms": round(mr.median_ms, 2),
                "p95_ms": round(mr.p95_ms, 2),
            }
        return {
            "collection": str(Path(folder).expanduser()),
            "files": {"corpus": prep.files.corpus.name, "topics": prep.files.topics.name,
                      "qrels": prep.files.qrels.name},
            "documents": len(mapping),
            "queries": len(queries),
            "topics": len(prep.topics),
            "topics_without_judgments": len([q for q in prep.topics if q not in judged]),
            "index": prep.build.to_json(),
            "retrieval": harness.retrieval_settings(kb.settings),
            "depth": depth,
            "modes": results,
            "against_better_lane": metrics.against_better_lane(ndcg, {"all": list(ndcg.get("hybrid", {}))}),
        }
    finally:
        kb.close()
