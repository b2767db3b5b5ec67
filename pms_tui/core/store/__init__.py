"""The store: the one SQLite file. It owns every SQL statement of the engine.

``Store`` opens the file (a writer connection, a reader per thread) and runs ``transaction()``; the
per-table repositories (``collections``, ``documents``, ``chunks``, ``vectors``, ``fts``,
``meta``) are modules of functions that take a connection and return named rows. Nothing
here imports the rooms above it (indexing, search, clip) or the KnowledgeBase.
"""

from ..errors import StoreError
from ..errors import describe_database_error as describe_error
from .connection import (
    BUSY_TIMEOUT_MS,
    Connection,
    DatabaseError,
    OperationalError,
    connect,
    read_snapshot,
    transaction,
)
from .database import IndexClosed, Store, check_driver
from .schema import FTS_TOKENIZE, SCHEMA_VERSION

__all__ = [
    "BUSY_TIMEOUT_MS", "Connection", "DatabaseError", "FTS_TOKENIZE", "IndexClosed", "OperationalError",
    "SCHEMA_VERSION", "Store", "StoreError", "check_driver", "connect", "describe_error", "read_snapshot",
    "transaction",
]
