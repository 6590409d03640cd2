"""Floor 2, the job: building the kernels, the launch line, running one point (C or
Python-side kernels), the energy probes and the provenance of a run."""
