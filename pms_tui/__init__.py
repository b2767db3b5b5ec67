"""pms-tui: local-first private search and web clipper for a Markdown knowledge base."""


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed package's metadata when first asked (by
    ``pms-tui --version``): importlib.metadata and the email parser it brings would otherwise
    delay every start of the app before its first screen."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("pms-tui")  # pyproject.toml's, as installed
    except PackageNotFoundError:  # run from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
