"""The reader's scroll, which remembers where the person went (the top or the end) while a
long note is still being put on the screen."""

from __future__ import annotations

from textual.containers import VerticalScroll


class ReaderScroll(VerticalScroll):
    """The reader's scroll; remembers Home or End pressed since the reader last placed a note:
    the blocks mounted after a first screen, the lines added above or below, keep the person
    at the top or the end (the reader's own scroll to the passage came after and won)."""

    went: str | None = None  # "home" or "end"

    # Home and End jump, not glide: a long note's glide outlasts the blocks mounted meanwhile,
    # and a person pressing Home wants the top now
    def action_scroll_home(self) -> None:
        self.went = "home"
        if not self.allow_vertical_scroll:
            return
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.went = "end"
        if not self.allow_vertical_scroll:
            return
        self.scroll_end(animate=False)

    def _moved(self) -> None:
        self.went = None  # (a line or a page from where it is: kept as the reader keeps any place)

    def action_scroll_up(self) -> None:
        self._moved()
        super().action_scroll_up()

    def action_scroll_down(self) -> None:
        self._moved()
        super().action_scroll_down()

    def action_page_up(self) -> None:
        self._moved()
        super().action_page_up()

    def action_page_down(self) -> None:
        self._moved()
        super().action_page_down()

    def keep_end(self) -> bool:
        """At the top or the end again if the person went there; whether they did."""
        if self.went == "home":
            self.scroll_home(animate=False, immediate=True)
        elif self.went == "end":
            self.scroll_end(animate=False, immediate=True)
        return self.went is not None
