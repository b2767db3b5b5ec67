#!/usr/bin/env python
"""Retrieval quality of every evaluation set, measured by ``pms-tui eval``, as Markdown tables.

    python benchmarks/evaluation.py                    # every set whose collection is here
    python benchmarks/evaluation.py til tldr           # some sets
    python benchmarks/evaluation.py til --write-doc    # and replace each set's section of docs/evaluation.md

Each set runs ``pms-tui eval ... --mode all --json`` in a new process (the product's own
evaluation: the same sync, the same search, its index cached under the user cache folder, so
a second run embeds nothing) and prints the lanes and the hybrid beside each other, by query
kind for a known-item set, with the hybrid minus its better lane and its 95% interval. With
``--write-doc`` each set's table replaces the section ``benchmarks/evaluation.py SET`` of
docs/evaluation.md (benchmarks/doc_sections.py: the command, the date and the load above it).
A set whose collection or query file is absent is said and skipped. The first run of a set
embeds its collection: minutes to an hour on two shared cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import doc_sections  # noqa: E402
from corpora import CORPORA, MARKDOWN  # noqa: E402

DOC = REPO / "docs" / "evaluation.md"
CACHE = REPO.parent / "cache" / "beir"  # collections converted by research/whole_docs/prepare.py
# name: (kind, query file or None, collection folder)
SETS: dict[str, tuple[str, Path | None, Path]] = {
    "scifact": ("beir", None, CORPORA / "beir" / "scifact"),
    "cranfield": ("beir", None, CACHE / "cranfield"),
    "nfcorpus": ("beir", None, CACHE / "nfcorpus-orig-preprocessed"),
    "til": ("known-item", REPO / "docs" / "known-item-til.jsonl", MARKDOWN / "jbranchaud-til"),
    "tldr": ("known-item", REPO / "docs" / "known-item-tldr.jsonl", MARKDOWN / "tldr-pages-en"),
    "powershell": ("known-item", REPO / "docs" / "known-item-powershell.jsonl",
                   MARKDOWN / "powershell-docs" / "reference" / "7.5"),
    "obsidian-help": ("known-item", REPO / "docs" / "known-item-obsidian-help.jsonl",
                      MARKDOWN / "obsidian-help"),
    "til-questions": ("known-item", REPO / "docs" / "known-item-til-questions.jsonl", MARKDOWN / "jbranchaud-til"),
}
MODES = ("bm25", "vector", "hybrid")


def evaluate(name: str) -> dict:
    kind, queries, folder = SETS[name]
    command = [sys.executable, "-m", "pms_tui", "eval", kind]
    command += [str(folder)] if kind == "beir" else [str(queries), "--collection", str(folder)]
    out = subprocess.run(command + ["--mode", "all", "--json"], capture_output=True, text=True, cwd=REPO)
    if out.returncode:
        raise SystemExit(f"{name}: pms-tui eval failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def _interval(report: dict, group: str) -> str:
    r = (report.get("against_better_lane") or {}).get(group)
    if not r:
        return ""
    low, high = r["ci95"]
    return f"{r['diff']:+.3f} [{low:+.3f}, {high:+.3f}] ({r['better_lane']})"


def table(name: str, report: dict) -> str:
    modes = report["modes"]
    settings = ", ".join(f"{k} {v}" for k, v in report["retrieval"].items())
    if SETS[name][0] == "beir":
        lines = [f"{name}: {report['queries']} judged queries over {report['documents']:,} documents.", "",
                 "| metric | BM25 | vector | **hybrid** | hybrid minus better lane, 95% interval |",
                 "|---|---|---|---|---|"]
        for metric in ("ndcg@10", "recall@100", "mrr@10"):
            cells = " | ".join(f"{modes[m][metric]:.4f}" for m in MODES if m in modes)
            lines.append(f"| {metric} | {cells} | {_interval(report, 'all') if metric == 'ndcg@10' else ''} |")
    else:
        lines = [f"{name}: {report['queries']} known-item queries (`{Path(report['file']).name}`) over "
                 f"{report['index']['documents']:,} notes; MRR@10 (Recall@1).", "",
                 "| queries | n | BM25 | vector | **hybrid** | hybrid minus better lane, 95% interval |",
                 "|---|---|---|---|---|---|"]
        kinds = ["all", *sorted(modes["hybrid"]["by_kind"])]
        for kind in kinds:
            stats = [modes[m]["overall"] if kind == "all" else modes[m]["by_kind"].get(kind) for m in MODES]
            cells = " | ".join(f"{s['mrr@10']:.3f} ({s['recall@1']:.2f})" if s else "-" for s in stats)
            lines.append(f"| {kind} | {stats[-1]['n'] if stats[-1] else '-'} | {cells} | {_interval(report, kind)} |")
    lines += ["", f"Retrieval settings: {settings}."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", help="some of: " + ", ".join(SETS))
    parser.add_argument("--write-doc", action="store_true",
                        help="replace each set's section of docs/evaluation.md with its table")
    args = parser.parse_args()
    unknown = [s for s in args.sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}; the sets are {', '.join(SETS)}")
    for name in args.sets or list(SETS):
        kind, queries, folder = SETS[name]
        if not folder.is_dir() or (queries is not None and not queries.is_file()):
            print(f"{name}: skipped, {folder if not folder.is_dir() else queries} is not here", file=sys.stderr)
            continue
        run = doc_sections.start([sys.argv[0], name] + (["--write-doc"] if args.write_doc else []))
        text = table(name, evaluate(name))
        print(text + "\n")
        if args.write_doc:
            doc_sections.write_section(DOC, f"benchmarks/evaluation.py {name}", text, run, doc_sections.load_now())
    return 0


if __name__ == "__main__":
    sys.exit(main())
