"""What ``recent --since`` and the ``recent`` tool take: an ISO date or time
(``2026-05-01``, ``2026-05-01T14:00``), or a span back from now (``30m``, ``2h``, ``7d``, ``2w``)."""

from __future__ import annotations

import re
import time
from datetime import datetime

from ..errors import UsageError

_SPAN = re.compile(r"(\d{1,6})\s*([smhdw])", re.IGNORECASE)
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(value: object, now: float | None = None) -> float:
    """Epoch seconds of ``value``; UsageError naming what is accepted."""
    now = time.time() if now is None else now
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if m := _SPAN.fullmatch(text):
            return now - int(m.group(1)) * _SECONDS[m.group(2).lower()]
        try:
            when = datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return when.timestamp() if when.tzinfo else when.astimezone().timestamp()
    raise UsageError("since takes a date or time (2026-05-01, 2026-05-01T14:00) or a span back from now "
                     "(30m, 2h, 7d, 2w).")
