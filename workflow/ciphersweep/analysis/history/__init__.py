"""The results history: every finished campaign's cells, kept across commits, builds
and machines, with regressions judged through the intervals and trends over the runs.

* :mod:`.store`: the SQLite file the runs are appended to (schema versioned).
* :mod:`.runs`: a finished campaign directory as one run of cells.
* :mod:`.regress`: the latest run against the earlier ones, through the intervals.
* :mod:`.trends`: trend plots (one panel per backend, one series per machine).
* :mod:`.outputs`: the ``history`` target's tables, plots and the gate.
* :mod:`.cli`: ``python -m ciphersweep.analysis.history import|export``.
"""
