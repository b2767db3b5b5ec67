"""What one tool result may hold: a long note in pages, several notes within a byte budget.

An agent's client takes only so much from one tool call. Claude Code counts a tool's output
against ``MAX_MCP_OUTPUT_TOKENS`` (25,000 tokens unless the user raises it) and saves a
successful result of more than 50,000 characters to a file, leaving the model a file path
instead of the text. Claude Code hands the model the structured content when a result has
both, other clients the text blocks; so ``get`` pages at 40,000 characters of text, whose
result stays under 50,000 characters in either form (a newline is one character of the page
and two once escaped in JSON), about 10,000 tokens of prose (text in Chinese or Japanese takes
more tokens a character: a smaller max_chars). ``multi_get`` counts the whole result as the
client receives it: the text blocks and the structured content, serialised as the SDK sends
them.
"""

from __future__ import annotations

import json

import mcp.types as types

from ..core.safe_text import safe_text

DEFAULT_PAGE_CHARS = 40_000  # a result's structured content as compact JSON, its text blocks likewise
METADATA_ROOM = 800  # what get's metadata takes beside a page's text, at first guess (then measured)
METADATA_SLACK = 150  # what a page's own fields (its lines, where the next starts, a cut) may add
MIN_TEXT_ROOM = 200  # the least text a page of get holds, however long the note's frontmatter
# the tools that keep within a budget of their own (get's max_chars, multi_get's max_bytes)
OWN_BUDGET = frozenset({"get", "multi_get"})
MAX_PAGE_CHARS = 100_000  # for a client whose user raised its limit; past 50,000 Claude Code files it
MIN_PAGE_CHARS = 1_000
MIN_MULTI_BYTES = 2_000  # an answer listing nothing takes a few hundred bytes, and SDK_ROOM
# what the SDK adds to a result after the tool made it (its name and version under _meta, about
# 90 bytes with the 2026-07-28 revision): room kept for it, and for more of its kind
SDK_ROOM = 256
_LONG_ID = 10**12  # a request id longer than a client's counter reaches
OVER_BUDGET = "Left out to stay within max_bytes: read them with get, or raise max_bytes."


def compact_json(data: object) -> str:
    """Compact JSON, one line: what the agent reads costs it context, and spaces are tokens."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def as_result(data: dict) -> types.CallToolResult:
    """The data as structured content, and as text for clients that only read text. A note's
    text (get) comes as a block of its own, as written, after its metadata as JSON."""
    if isinstance(data.get("text"), str):
        blocks = [compact_json({k: v for k, v in data.items() if k != "text"}), data["text"]]
    else:
        blocks = [compact_json(data)]
    return types.CallToolResult(content=[types.TextContent(type="text", text=b) for b in blocks],
                                structured_content=data)


def structured_size(data: object) -> int:
    """Characters of ``data`` as compact JSON: the structured content as a client hands it on."""
    return len(compact_json(data))


_SAYING_ROOM = 600  # left_out and over_budget, with the counts of a few lists
LEFT_OUT = ("Left out to keep the answer within {limit:,} characters: {counts}; ask for fewer "
            "(a smaller k) or narrower filters.")


def fit_lists(data: dict, limit: int = DEFAULT_PAGE_CHARS) -> dict:
    """``data`` within ``limit`` characters of compact JSON (``structured_size``): items left
    out from the end of its longest lists (hits, backlinks, related notes), counted under
    ``left_out`` and said in ``over_budget``. The text blocks of the result hold the same JSON,
    so they keep within it too."""
    if structured_size(data) <= limit:
        return data
    out = {k: list(v) if isinstance(v, list) else v for k, v in data.items()}
    sizes = {k: structured_size(v) for k, v in out.items() if isinstance(v, list)}
    left: dict[str, int] = {}
    excess = structured_size(out) - (limit - _SAYING_ROOM)
    while excess > 0 and any(out[k] for k in sizes):
        key = max((k for k in sizes if out[k]), key=sizes.__getitem__)
        dropped = structured_size(out[key].pop()) + 1  # the item and its comma
        sizes[key] -= dropped
        excess -= dropped
        left[key] = left.get(key, 0) + 1
    out["left_out"] = left
    out["over_budget"] = LEFT_OUT.format(limit=limit, counts=", ".join(f"{n:,} {k}" for k, n in left.items()))
    return out


def wire_bytes(data: dict) -> int:
    """UTF-8 bytes of the message that carries the tool result for ``data`` to the client,
    serialised as the SDK's server writes it (its fields and the JSON-RPC envelope included)."""
    result = as_result(data).model_dump(by_alias=True, mode="json", exclude_none=True)
    message = types.JSONRPCResponse(jsonrpc="2.0", id=_LONG_ID, result=result)
    return len(message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))


def fit_hits(hits: list[dict], max_chars: int = DEFAULT_PAGE_CHARS) -> tuple[list[dict], int]:
    """The first of ``hits`` whose JSON stays within ``max_chars`` (at least one), and how many
    were left out: a search may ask for up to the engine's k, but a client takes a result only
    as long as a page of ``get``."""
    kept: list[dict] = []
    used = 0
    for hit in hits:
        used += len(compact_json(hit)) + 1
        if kept and used > max_chars:
            break
        kept.append(hit)
    return kept, len(hits) - len(kept)


def safe_page(text: str) -> str:
    """A page of a note as the answer gives it: control characters made inert, its line
    endings (a CRLF file's ``\\r\\n`` too) kept, so pages joined are the file's text."""
    return safe_text(text, keep="\t\n\r")


def text_size(text: str) -> int:
    """Characters ``text`` takes in the answer: made inert (``safe_page``), then escaped as JSON
    (a newline, a quote or a backslash takes two), so a page of ``max_chars`` is that long on the wire."""
    return len(json.dumps(safe_page(text), ensure_ascii=False)) - 2


def fit_notes(notes: list[dict], oversized: list[dict], errors: list[dict], max_bytes: int,
              extra: dict) -> dict:
    """multi_get's answer: as many of ``notes`` (whole, in order) as fit with everything else
    within ``max_bytes`` of the result the client receives. Every note left out is listed under
    skipped, before any note text is given room; when even that list does not fit, the notes
    it cannot name are counted under unlisted. ``bytes`` is the answer's size as the server
    writes it, before the SDK adds its own fields (``SDK_ROOM``)."""
    def entry(note: dict) -> dict:
        return {"id": note["id"], "total_lines": note["total_lines"]}

    limit = max_bytes - SDK_ROOM
    # measured with every optional field present and each count at its widest, then trimmed
    result: dict = {"notes": [], "bytes": max_bytes, "max_bytes": max_bytes, "skipped": [], "errors": [],
                    **extra, "over_budget": OVER_BUDGET, "unlisted": 999_999}
    empty: dict[str, list] = {"notes": [], "skipped": [], "errors": []}
    bare = wire_bytes(empty)

    def cost(key: str, item: dict) -> int:  # the item's bytes in a list, its comma included
        return wire_bytes({**empty, key: [item]}) - bare + 2

    used = wire_bytes(result)
    skip_costs = [cost("skipped", entry(n)) for n in notes]
    must_list = [("errors", e) for e in errors] + [("skipped", entry(n)) for n in oversized]
    reserve = sum(skip_costs) + sum(cost(k, e) for k, e in must_list)
    if used + reserve <= limit:
        result["unlisted"] = 0
        for key, item in must_list:
            result[key].append(item)
        used += reserve - sum(skip_costs)
        waiting = sum(skip_costs)  # room kept to list every later note as skipped
        for note, skip_cost in zip(notes, skip_costs):
            waiting -= skip_cost
            note_cost = cost("notes", note)
            if used + note_cost + waiting <= limit:
                result["notes"].append(note)
                used += note_cost
            else:
                result["skipped"].append(entry(note))
                used += skip_cost
    else:  # not even the names fit: as many as do, and a count of the rest
        unlisted = 0
        for key, item in must_list + [("skipped", entry(n)) for n in notes]:
            item_cost = cost(key, item)
            if used + item_cost <= limit:
                result[key].append(item)
                used += item_cost
            else:
                unlisted += 1
        result["unlisted"] = unlisted
    return _settle(result, limit)


def _settle(result: dict, limit: int) -> dict:
    """The result with its own size under ``bytes`` and only the fields it needs; trimmed
    further should the sum of the parts have misjudged the whole."""
    if not result["unlisted"]:
        del result["unlisted"]
    if not result["skipped"] and "unlisted" not in result:
        del result["over_budget"]
    while True:
        result["bytes"] = wire_bytes(result)
        size = wire_bytes(result)  # the count's own digits may change it
        if size <= limit and size == result["bytes"]:
            return result
        if size <= limit:
            continue
        if result["notes"]:
            note = result["notes"].pop()
            result["skipped"].append({"id": note["id"], "total_lines": note["total_lines"]})
        elif result["skipped"] or result["errors"]:
            (result["skipped"] or result["errors"]).pop()
            result["unlisted"] = result.get("unlisted", 0) + 1
        else:
            return result  # nothing left to leave out: below MIN_MULTI_BYTES only
        result.setdefault("over_budget", OVER_BUDGET)
