"""The web clipper: ``fetch`` (HTTP and charsets), ``html_to_markdown`` (trafilatura),
``code_blocks`` (kept apart from the extractor), ``markdown_tidy`` and ``note`` (the note
written into a collection folder)."""
