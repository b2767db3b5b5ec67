"""Indexing: files to chunks to rows. ``notes`` walks folders and reads notes (the one size
limit), ``frontmatter`` and ``chunk`` parse them, ``embed`` turns text into vectors,
``collections`` names the folders, and ``plan``/``sync`` bring the index in step."""
