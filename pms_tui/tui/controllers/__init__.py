"""What the search screen does besides searching, one controller object per concern, each
owned by :class:`pms_tui.tui.screens.search.SearchScreen`: ``query`` (the search language's
views, history, saved searches, evidence), ``notes`` (reader, editor, clipboard), ``sync``
(sync, watch, the bundled guide, adding a folder), ``clip`` (clipping a web page) and
``links`` (following links, back and forward, the links panel).

A controller declares its own state in ``__init__`` and reaches the screen only through
:class:`Host`, the narrow interface below. The screen keeps the key actions and message
handlers (Textual finds them there) and hands each to the controller that owns it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, overload

if TYPE_CHECKING:
    from textual.app import App
    from textual.css.query import QueryType
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.widget import Widget
    from textual.worker import Worker

    from pms_tui.core.kb import KnowledgeBase

    from ..widgets.evidence import EvidencePanel
    from ..widgets.reader import Reader
    from ..widgets.results import ResultsList
    from ..widgets.search_bar import SearchBar
    from ..widgets.status import StatusLine


class Host(Protocol):
    """What a controller may use of the screen that owns it."""

    kb: KnowledgeBase | None
    read_clipboard: bool
    collection_filter: str | None
    collection_names: list[str]

    @property
    def app(self) -> App: ...
    @property
    def is_attached(self) -> bool: ...
    @property
    def search_bar(self) -> SearchBar: ...
    @property
    def results(self) -> ResultsList: ...
    @property
    def reader(self) -> Reader: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def evidence(self) -> EvidencePanel: ...
    @property
    def vector_ready(self) -> bool: ...

    @property
    def focused(self) -> Any: ...

    def key(self, binding_id: str) -> str: ...
    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[QueryType]) -> QueryType: ...
    @overload
    def query_one(self, selector: str, expect_type: type[QueryType]) -> QueryType: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def run_worker(self, work: Callable, *, name: str = "", group: str = "default", exclusive: bool = False,
                   exit_on_error: bool = True, thread: bool = False) -> Worker: ...
    def set_timer(self, delay: float, callback: Callable, *, name: str | None = None) -> Any: ...
    def request_search(self, immediate: bool = False) -> None: ...
    def refresh_collections(self) -> None: ...
    def refresh_stats(self) -> None: ...
    # what one controller asks of another, through the screen
    def remember_query(self) -> None: ...
    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False,
                   embed_only: bool = False) -> None: ...
    def index_changed(self) -> None: ...


def while_running(handler):
    """Drop messages and callbacks that arrive while the app is shutting down (no screen to
    update). On a controller, the screen that owns it (``host``) is asked."""

    @functools.wraps(handler)
    def guarded(self, *args, **kwargs):
        node = getattr(self, "host", self)
        if not node.is_attached or not node.app.is_running:
            return None
        return handler(self, *args, **kwargs)

    return guarded


def opened(kb: KnowledgeBase | None) -> KnowledgeBase:
    """``kb`` in code that runs only once the index is open: its caller checked, or it is a
    worker or a callback started after that check."""
    assert kb is not None, "the index is not open"
    return kb


def thread_worker(host: Host, name: str, group: str, work: Callable, *args, exclusive: bool = False):
    """Run ``work(*args)`` in a thread worker of the screen (as ``@work(thread=True,
    exit_on_error=False)`` would on a screen method), named for the error message."""
    return host.run_worker(functools.partial(work, *args), name=name, group=group, exclusive=exclusive,
                           exit_on_error=False, thread=True)
