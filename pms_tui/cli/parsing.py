"""The command line's parsers: a subcommand's help written when it is asked for."""

from __future__ import annotations

import argparse
from collections.abc import Callable


class Parser(argparse.ArgumentParser):
    """A subcommand's parser whose description may come from a function, called when help is shown,
    so that the engine (the search language's filters) is imported only then. A search starts
    its query vector before the engine loads."""

    describe: Callable[[], str] | None = None

    def format_help(self) -> str:
        if self.describe is not None:
            self.description = self.describe()
        return super().format_help()


def search_description() -> str:
    from ..core.kb import FILTERS

    return (f'Search with words, "phrases", -exclusions and filters: {FILTERS.summary()}. '
            "A query that starts with - goes after --.")
