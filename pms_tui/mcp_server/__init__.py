"""``pms-tui mcp``: the index served to AI agents over the Model Context Protocol.

A front end like the app and the CLI: it reaches the engine through ``core.kb`` alone, so
agents get the same search, the same ranking and the same notes. Nothing is imported here:
``pms-tui search`` reads this package's command line (``command``) without loading the SDK.
"""
