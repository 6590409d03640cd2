"""``python -m ciphersweep.analysis.plots``: the run's drawing process
(:func:`ciphersweep.analysis.plots.drawing.main`)."""

import os
import sys

from ciphersweep.analysis.plots import drawing

code = drawing.main()
sys.stderr.flush()
# every answer is written and the children have ended: nothing is left that the
# interpreter's own ending (freeing matplotlib's objects) would do
os._exit(code)
