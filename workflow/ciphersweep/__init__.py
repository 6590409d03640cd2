"""ciphersweep: benchmark orchestration logic for the AES-128 kernel sweeps.

All logic used by the Snakemake rules lives here so that it can be imported and unit
tested: configuration validation (:mod:`ciphersweep.plan.config`), sweep expansion
(:mod:`ciphersweep.plan.sweep`), launch lines (:mod:`ciphersweep.job.launch`), running one point
(:mod:`ciphersweep.job.runner`), gathering records (:mod:`ciphersweep.verdict.records`), tables
(:mod:`ciphersweep.analysis.tables.registry`) and plots (:mod:`ciphersweep.analysis.plots`).
"""

__version__ = "0.1.0"
