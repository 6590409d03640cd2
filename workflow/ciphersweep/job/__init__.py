"""Floor 2, the job: building the kernels, the launch line, running one point (C or
Python-side kernels), the record contract the kernels write to (``record_schema``), the
energy probes and the provenance of a run."""
