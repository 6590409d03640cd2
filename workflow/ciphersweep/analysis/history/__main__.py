"""``python -m ciphersweep.analysis.history``: see :mod:`.cli`."""

import sys

from .cli import main

sys.exit(main())
