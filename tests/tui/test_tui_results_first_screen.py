"""The results list builds the rows a screen shows first and the rest after that paint
(widgets/results.py): what it lists in the end is the same as building every row at once,
a key that moves past the first screen finds every row, and a newer search's rows are never
mixed with the rest of an older one's."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settle, settled, type_query, write_note

from pms_tui.tui.widgets.results import hit_row


def _home(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    for i in range(40):
        write_note(folder, f"n{i:02d}.md", f"# Note {i}\n\nHow to compute the value number {i} "
                                           f"{'again and again, step by step, ' * (i % 4)}and check it.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
    return home


def _listed(results) -> list[tuple[str, bool]]:
    """(row text, separator under it) of every option."""
    return [(str(o.prompt), o._divider) for o in results.options]


def _all_at_once(results) -> list[tuple[str, bool]]:
    """What building every row at once lists, at the width the list built them for."""
    rows = results.rows
    return [(str(hit_row(r.hit, results._built_width, results.recent, r.more, r.extra, r.note in results.expanded)),
             i + 1 < len(rows) and not rows[i + 1].extra) for i, r in enumerate(rows)]


def test_the_rows_below_the_first_screen_come_after_it_and_the_list_ends_the_same(tmp_path):
    home = _home(tmp_path)

    async def go():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "compute")
            await settled(app, pilot)  # no search of the app's own comes in between
            results = app.search_screen.results
            rows = len(results.rows)
            assert rows == 30  # the case is what it says: more rows than a screen holds
            assert _listed(results) == _all_at_once(results)
            hits = list(results.hits)

            # the same hits again, as a new query's: only the first screen is built at once
            results.show_hits(hits, limit=30)
            first = results.option_count
            assert 0 < first < rows
            height = results.scrollable_content_region.height
            assert sum(str(o.prompt).count("\n") + 1 + o._divider for o in results.options) > height
            await settle(app, pilot)
            assert results.option_count == rows
            assert _listed(results) == _all_at_once(results)

            # End before the rest came: the last row is there and highlighted
            results.show_hits(hits, limit=30)
            assert results.option_count < rows
            results.action_last()
            assert results.option_count == rows and results.highlighted == rows - 1
            assert results.current.chunk_id == results.rows[-1].hit.chunk_id
            await settle(app, pilot)
            assert _listed(results) == _all_at_once(results)

            # a newer search replaces the rows before the older one's rest came: none of it stays
            results.show_hits(hits, limit=30)
            newer = list(reversed(hits))[:12]
            results.show_hits(newer, limit=30)
            await settle(app, pilot)
            assert [r.hit.chunk_id for r in results.rows] == [h.chunk_id for h in newer]
            assert _listed(results) == _all_at_once(results)

    run(go())
