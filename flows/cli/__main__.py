"""``python -m flows.cli``: the ``sleuth`` command."""

import sys

from . import main

sys.exit(main())
