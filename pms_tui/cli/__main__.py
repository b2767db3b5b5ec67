"""``python -m pms_tui.cli``: the same as ``pms-tui``."""

import sys

from . import main

sys.exit(main())
