"""The results history: every finished campaign's cells, kept across commits, builds
and machines, with regressions judged through the intervals and trends over the runs.

* :mod:`.store`: the SQLite file the runs are appended to (its tables: :mod:`.schema`;
  what a file must be to be used as one, checked without writing: :mod:`.guard`).
* :mod:`.runs`: a finished campaign directory as one run of cells (what its summary
  must hold: :mod:`.validate`).
* :mod:`.regress`: the latest run against the earlier ones, through the intervals.
* :mod:`.trends`: trend plots (one panel per backend, one series per machine).
* :mod:`.outputs`: the ``history`` target's tables, plots and the gate.
* :mod:`.cli`: ``python -m ciphersweep.analysis.history import|export``.
"""

# what the ``history`` target writes: tables/<name>.{csv,md,tex}, plots/<name>.*
TABLES = ("history", "regressions")
TREND = "history_trend"
