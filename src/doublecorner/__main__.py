"""``python -m doublecorner``: the same as the ``doublecorner`` command."""

import sys

from doublecorner.cli import main

sys.exit(main())
