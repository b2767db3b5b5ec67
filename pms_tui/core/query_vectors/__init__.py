"""The one-shot query-vector service: a one-shot `pms-tui search`'s query vector made beside
the search, so the search need not load the model itself.

- ``helper``: ``start(home, query)``, what the CLI calls before it imports the rest of the
  engine: the vector from the home's disk cache, from a running app or `pms-tui mcp` of the
  home, or from a helper process forked to embed it on the other core.
- ``service``: the Unix socket on which the app and `pms-tui mcp` serve query vectors from
  their loaded model (``KnowledgeBase.model.serve_query_vectors``).
- ``embedding``: the vector a search for a query embeds, made without opening the index.
- ``model``: the bundled model's query vector without importing fastembed.

Importing this package imports only the standard library: the CLI imports it first.
"""

from .helper import start

__all__ = ["start"]
