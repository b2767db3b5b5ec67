"""The terminal UI: a thin Textual layer over :mod:`pms_tui.core`."""
