"""Fitting the status line's parts into its width, the least important first to go.

Each part has forms, longest first, and each form an importance (``keep``): while the line is
too wide, the least important form still shown goes (its part steps to its next, shorter form,
or, at its shortest, leaves the line), the rightmost first among equals. Then what was taken
and fits again comes back, most important first. The parts keep their order on screen; a part
is never cut in the middle, except the last one left on a line narrower than it, which ends in
an ellipsis. Plain data, no Textual: a span is ``(text, style)``, the style only carried along.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

Span = tuple[str, str]  # (text, style)
ELLIPSIS = "…"


@dataclass(frozen=True)
class Form:
    """One way to show a part: its spans, and how important it is to show it this long."""

    keep: int
    spans: tuple[Span, ...]

    @property
    def cells(self) -> int:
        return sum(cell_len(text) for text, _ in self.spans)

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.spans)


Part = tuple[Form, ...]  # longest first


def part(keep: int, *forms: Sequence[Span], step: int = 12) -> Part:
    """A part from its forms, longest first: the shortest kept at ``keep``, each longer one
    ``step`` less; a form the same as the one after it is left out (nothing to shorten)."""
    made: list[Form] = []
    for n, spans in enumerate(reversed(forms)):
        form = Form(keep - n * step, tuple(spans))
        if not made or made[0].spans != form.spans:
            made.insert(0, form)
    return tuple(made)


def cut(spans: Sequence[Span], cells: int) -> tuple[Span, ...]:
    """``spans`` in at most ``cells`` cells: as they are if they fit, else cut, ending in "…"."""
    if sum(cell_len(text) for text, _ in spans) <= cells:
        return tuple(spans)
    if cells <= 0:
        return ()
    kept: list[Span] = []
    room = cells - cell_len(ELLIPSIS)
    for text, style in spans:
        width = cell_len(text)
        if width <= room:
            kept.append((text, style))
            room -= width
            continue
        head = set_cell_size(text, room).rstrip() if room > 0 else ""
        if cell_len(head) > room:  # a wide character padded by set_cell_size: leave it out
            head = head[:-1]
        kept.append((head + ELLIPSIS, style))
        break
    return tuple(kept)


def shorter_in_words(text: str, cells: int) -> list[str]:
    """Shorter forms of ``text`` (a filter and why it was ignored), longest first, each of whole
    words and within ``cells``: the text up to its first parenthesis, else cut after a word
    (ending in "…"); and always its first word (what was ignored) alone."""
    forms: list[str] = []
    clause = text.split(" (")[0].rstrip(" ,;:")
    if clause != text and cell_len(clause) <= cells:
        forms.append(clause)
    elif cell_len(text) > cells:
        words = text.split(" ")
        while len(words) > 1 and cell_len(" ".join(words) + ELLIPSIS) > cells:
            words.pop()
        if len(words) > 1:
            forms.append(" ".join(words).rstrip(" ,;:") + ELLIPSIS)
    first = text.split(" ")[0].rstrip(",;")
    if first.count(":") > 1:  # "in:x: why" names the filter "in:x"; "tag:" stays as typed
        first = first.removesuffix(":")
    if first not in forms and first != text:
        forms.append(first)
    return forms


def fit(parts: Sequence[Part], width: int, separator_cells: int = 3) -> list[Form]:
    """The forms of ``parts`` to show, in their order, within ``width`` cells (parts are joined
    by a separator of ``separator_cells``)."""
    shown = [0] * len(parts)  # each part's form; len(forms): left out

    def total() -> int:
        cells = [p[i].cells for p, i in zip(parts, shown) if i < len(p)]
        return sum(cells) + separator_cells * max(len(cells) - 1, 0)

    def visible() -> int:
        return sum(i < len(p) for p, i in zip(parts, shown))

    steps = sorted((min(f.keep for f in p[i:]), -n, i, n) for n, p in enumerate(parts) for i in range(len(p)))
    taken: list[tuple[int, int]] = []
    for _, _, i, n in steps:
        if total() <= width or (visible() == 1 and i == len(parts[n]) - 1):
            break
        shown[n] = i + 1
        taken.append((n, i))
    for n, i in reversed(taken):  # room left: the most important of what went comes back first
        if shown[n] == i + 1:
            shown[n] = i
            if total() > width:
                shown[n] = i + 1
    forms = [p[i] for p, i in zip(parts, shown) if i < len(p)]
    if total() > width and forms:  # one part left, wider than the line
        forms = [Form(forms[0].keep, cut(forms[0].spans, width))] if width > 0 else []
    return forms
