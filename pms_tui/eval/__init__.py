"""Retrieval-quality evaluation: BEIR-style test collections and known-item query sets."""
