"""The pms-tui terminal app: opens the knowledge base, loads themes and the keymap, and
shows the :class:`~pms_tui.tui.screens.search.SearchScreen`, which does the rest.

The app holds only what every screen shares: the ``KnowledgeBase``, the themes (and the one
that was chosen), the keymap, and the global keys (help, quit, the command palette).
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.theme import BUILTIN_THEMES, Theme
from textual.worker import WorkerCancelled

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe
from pms_tui.core.safe_text import one_line, safe_text

from .commands import AppCommands, Command
from .controllers.sync import WATCH_GROUP
from .keys import ALL_BINDINGS, APP_BINDINGS, RESULTS_BINDINGS, bound_key, keymap_from_settings
from .screens.search import SearchScreen
from .themes import DEFAULT_DARK, bundled_theme_dir, load_themes

if TYPE_CHECKING:
    from .dialogs.help import KeyRow


def _freeze_imports() -> None:
    """Move what the imports made (modules, classes, functions: 43k objects, alive until the
    process ends) out of the garbage collector's reach, once per process, so that no
    collection scans them (one before the first screen would delay it)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()


class PmsApp(App[int]):
    """``PmsApp(home=path)``; ``run_app()`` is the entry point of ``pms-tui``."""

    CSS_PATH = "app.tcss"
    TITLE = "pms-tui"
    BINDINGS = [*APP_BINDINGS]  # a list of Textual's wider BindingType
    COMMANDS = App.COMMANDS | {AppCommands}

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Every notification is plain text: it names notes, folders and pages (``[/]x`` and
        ``[@click=app.quit]`` are data, never markup) and their escape sequences are shown inert."""
        super().notify(safe_text(message, keep="\n"), title=one_line(title), severity=severity,
                       timeout=timeout, markup=False)

    def __init__(self, home: str | os.PathLike | None = None, *, show_timings: bool = True,
                 load_model: bool = True, first_run_sample: bool = True, read_clipboard: bool = True) -> None:
        _freeze_imports()
        super().__init__()
        self.started_at = time.perf_counter()
        self.first_screen_ms: float | None = None
        self.startup_problems: list[tuple[str, str]] = []  # (sentence, severity)
        self.kb = None
        try:
            from pms_tui.core.kb import KnowledgeBase

            self.kb = KnowledgeBase(home=home)
            self.startup_problems += [(w, "warning") for w in self.kb.settings.warnings]
        except Exception as exc:  # noqa: BLE001 - a locked or damaged index: say so in the UI
            self.startup_problems.append((f"The index cannot be opened: {describe(exc)}", "error"))
        self.settings = self.kb.settings if self.kb else None
        self.keymap: dict[str, str] = {}
        if self.settings is not None:
            self.keymap, problems = keymap_from_settings(self.settings.extra.get("keys", {}))
            self.startup_problems += [(p, "warning") for p in problems]
        self._register_themes()
        self.search_screen = SearchScreen(
            self.kb, keymap=self.keymap, show_timings=show_timings, load_model=load_model,
            first_run_sample=first_run_sample, read_clipboard=read_clipboard,
        )

    def _register_themes(self) -> None:
        home = self.kb.home if self.kb else None
        bundled, problems = load_themes(bundled_theme_dir())
        user, user_problems = load_themes(home / "themes" if home else None)
        for theme in bundled + user:
            self.register_theme(theme)
        if DEFAULT_DARK in self.available_themes:
            # the palette's theme picker offers the app's themes and the person's, as the README
            # names them, not Textual's own seventeen
            for name in BUILTIN_THEMES:
                if name not in {t.name for t in bundled + user}:
                    self.unregister_theme(name)
        self.startup_problems += [(p, "warning") for p in problems + user_problems]
        wanted = DEFAULT_DARK
        if self.kb is not None:
            chosen = load_state(self.kb.home).get("theme")  # chosen in the app: wins over config.toml's
            wanted = chosen if isinstance(chosen, str) else self.kb.settings.theme
        if wanted not in self.available_themes:
            self.startup_problems.append((f"There is no theme named {wanted!r}; using {DEFAULT_DARK}.", "warning"))
            wanted = DEFAULT_DARK if DEFAULT_DARK in self.available_themes else "textual-dark"
        self.theme = self._remembered_theme = wanted

    def get_default_screen(self) -> SearchScreen:
        return self.search_screen

    def on_mount(self) -> None:
        if self.keymap:
            self.set_keymap(self.keymap)
        for text, severity in self.startup_problems:
            self.notify(text, severity=severity, timeout=10)
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.call_after_refresh(self._first_screen_shown)

    def _first_screen_shown(self) -> None:
        self.first_screen_ms = (time.perf_counter() - self.started_at) * 1000

    def key_name(self, binding_id: str) -> str:
        """The key bound to ``binding_id`` now (remaps applied), as hints name it."""
        return bound_key(binding_id, self.keymap, self.COMMAND_PALETTE_BINDING)

    # -- themes -----------------------------------------------------------------------------------
    def set_theme(self, name: str) -> None:
        self.theme = name

    def _on_theme_changed(self, theme: Theme) -> None:
        if self.kb is None or theme.name == self._remembered_theme:
            return
        try:
            save_state(self.kb.home, theme=theme.name)
            self._remembered_theme = theme.name
        except Exception as exc:  # noqa: BLE001 - a read-only home: keep the theme for this run
            self.notify(f"The theme could not be remembered: {describe(exc)}", severity="warning")

    def palette_commands(self) -> list[Command]:
        """The app's own themes and the person's, in the command palette."""
        return [(f"Theme: {name}", partial(self.set_theme, name), "Switch and remember")
                for name in sorted(self.available_themes) if name not in BUILTIN_THEMES]

    def action_help_quit(self) -> None:
        """ctrl+c (copy in a field) elsewhere: say how to quit, in plain words (Textual's own
        toast is markup, and every notification here is plain text)."""
        self.notify(f"Press {self.key_name('app.quit')} to quit the app.", title="Do you want to quit?")

    # -- help -------------------------------------------------------------------------------------
    def key_rows(self) -> list[KeyRow]:
        """Every key, with remaps applied."""
        from .dialogs.help import KeyRow  # the help screen's, imported when first shown (DataTable is a costly import)

        rows = [
            KeyRow("↑ ↓ pgup pgdn", "Move through the results (from the search bar too)", ""),
            KeyRow("enter", "Search bar → results → reader", ""),
            KeyRow("tab / shift+tab", "Move focus between search bar, results and reader", ""),
            KeyRow(self.get_key_display(Binding(self.COMMAND_PALETTE_BINDING, "")), "Command palette", ""),
        ]
        for binding in ALL_BINDINGS:
            binding_id = binding.id or ""  # every binding of the app has an id
            keys = self.keymap.get(binding_id, binding.key)
            shown = " ".join(self.get_key_display(Binding(k.strip(), "")) for k in keys.split(","))
            action = binding.tooltip or binding.description
            if binding in RESULTS_BINDINGS:  # letters: in the search bar they are typed
                action = f"{action} (in the results list)"
            rows.append(KeyRow(shown, action, binding_id))
        return rows

    def action_help(self) -> None:
        from ..core.kb import FILTERS
        from .dialogs.help import HelpScreen, help_intro

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.key_rows(), help_intro(self.key_name, FILTERS.summary())))

    async def wait_for_work(self) -> None:
        """Wait until the work that ends by itself has ended: every worker but watch mode's
        (it runs until the app closes), and a stopped sync's thread (its worker is cancelled
        at once; the thread finishes the note it is on). For headless drivers: the tests,
        the screenshot script, the benchmarks."""
        for worker in [w for w in self.workers if w.group != WATCH_GROUP]:
            try:
                await worker.wait()
            except WorkerCancelled:
                pass
        while self.search_screen.syncer.running:
            await asyncio.sleep(0.02)

    def on_unmount(self) -> None:
        self.search_screen.syncer.stop_all()
        if self.kb is not None:
            try:
                self.kb.close()
            except Exception:  # noqa: BLE001
                pass


def run_app(home: str | None = None) -> int:
    """Open the terminal UI on ``home`` (None: PMS_TUI_HOME or the user data dir)."""
    app = PmsApp(home=home)
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
