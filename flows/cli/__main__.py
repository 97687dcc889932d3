"""``python -m flows.cli``: the ``sleuth`` command."""

import sys

from . import run

sys.exit(run())
