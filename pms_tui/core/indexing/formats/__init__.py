"""The readers of the document formats beyond PDF and Word, one module per format, each run
inside the document reader's child process (``document_reader.FORMATS`` names them)."""
