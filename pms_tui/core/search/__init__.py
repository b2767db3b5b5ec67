"""Search: what a person typed, ranked by two lanes (BM25 over FTS5, cosine over vectors)
and fused. ``query`` builds the FTS5 MATCH, ``bm25_planner`` runs it cheaply, ``bm25`` is the
lane, ``vector_index`` the in-memory mirror of the vectors, ``fusion`` the RRF, and
``retrieval`` puts them together."""
