"""pms-tui: local-first private search and web clipper for a Markdown knowledge base."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pms-tui")  # pyproject.toml's, as installed
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
