"""Writing notes: what an agent (MCP), the CLI and the API ask of ``kb.write``.

One module per rule: ``shape`` (a note's bytes as text and back: encoding, BOM, line endings),
``edits`` (appending, prepending, a heading's section, an exact passage), ``properties`` (the
frontmatter's keys), ``link_rewrite`` (links that follow a renamed note), ``guard`` (what may be
written where: the one place that refuses), ``replace`` (a note replaced only if it is still
the version the write was made from), ``journal`` (every write, for ``history`` and ``undo``),
``trash`` (deleted notes, restorable), ``service`` (``NoteWriter``, which is ``kb.write``).
"""
