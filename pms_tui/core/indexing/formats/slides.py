"""PowerPoint decks (.pptx): a slide is a page (``# page N``, as a PDF's), its text the text of
its shapes in the deck's order (groups opened, a table's rows as cells joined by `` | ``),
then its speaker notes. A chart's words (its title, its categories) and a picture's are not
read: a slide holding only those has no text.

Why python-pptx: the maintained reader of the format (MIT, pure Python on lxml, wheels on
PyPI), whose XML parser expands no entity. It loads every part of the deck into memory, the
pictures too, so the zip's sizes are checked first (``archive``): its XML parts and all its
parts together.
"""

from __future__ import annotations

from ..document_reader import clean
from . import archive
from .archive import Refused

# python-pptx holds every part in memory (pictures, video): a deck whose parts inflate past
# this is not opened (the reader's memory limit is 1.5 GB).
MAX_INFLATED_PARTS = 600_000_000
NOTES = "Notes:"


def read(path: str, max_chars: int) -> dict:
    try:
        with archive.open_zip(path, "PowerPoint") as deck:
            archive.check_inflated(deck, all_limit=MAX_INFLATED_PARTS)
    except Refused as exc:
        return {"skip": str(exc)}
    from lxml import etree
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        presentation = Presentation(path)
        slides = list(presentation.slides)
    except etree.XMLSyntaxError as exc:
        return {"skip": f"not a readable PowerPoint file (its XML: {str(exc)[:120]})"}
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        return {"skip": f"not a readable PowerPoint file ({type(exc).__name__}: {str(exc)[:120]})"}
    title = " ".join((presentation.core_properties.title or "").split())[:200]
    pages: list[str] = []
    size, left_out = 0, 0
    for i, slide in enumerate(slides):
        if size >= max_chars:
            left_out = len(slides) - i
            break
        lines: list[str] = []
        for shape in _shapes(slide.shapes):
            lines += _shape_lines(shape)
        if slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame
            notes = [p.strip() for p in (frame.text if frame is not None else "").split("\n") if p.strip()]
            if notes:
                lines += [NOTES, *notes]
        text = clean("\n".join(lines))[: max(max_chars - size, 0)]
        size += len(text)
        pages.append(text)
    return {"pages": pages, "title": title, "truncated": left_out}


def _shapes(shapes):
    for shape in shapes:
        if getattr(shape, "shape_type", None) is not None and hasattr(shape, "shapes"):  # a group
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _shape_lines(shape) -> list[str]:
    lines: list[str] = []
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        lines += [p.strip() for p in shape.text_frame.text.split("\n") if p.strip()]
    if getattr(shape, "has_table", False) and shape.has_table:
        for row in shape.table.rows:
            cells = [" ".join(cell.text.split()) for cell in row.cells]
            if any(cells):
                lines.append(" | ".join(cells))
    return lines
