"""The ``meta`` table: small facts about the index (schema version, embedding model, the
vectors' generation counter)."""

from __future__ import annotations

SCHEMA_VERSION_KEY = "schema_version"
MODEL_KEY = "embedding_model"
DIM_KEY = "embedding_dim"
GENERATION_KEY = "vectors_generation"


def get_meta(conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn, key: str, value: object) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, str(value)),
    )


def bump_generation(conn) -> None:
    """Call inside the transaction that adds or removes vectors: the in-memory mirror of the
    vectors (search.vector_index) reloads when the counter moves."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        (GENERATION_KEY,),
    )


def vectors_generation(conn) -> str | None:
    return get_meta(conn, GENERATION_KEY)


def recorded_model(conn) -> tuple[str | None, int]:
    """(model name, dimension) the index's vectors were made with; (None, 0) on a new index."""
    return get_meta(conn, MODEL_KEY), int(get_meta(conn, DIM_KEY) or 0)


def record_model(conn, name: str, dim: int) -> None:
    set_meta(conn, MODEL_KEY, name)
    set_meta(conn, DIM_KEY, dim)
