"""ciphersweep: benchmark orchestration logic for the AES-128 kernel sweeps.

All logic used by the Snakemake rules lives here so that it can be imported and unit
tested: configuration validation (:mod:`ciphersweep.config`), sweep expansion
(:mod:`ciphersweep.sweep`), launch lines (:mod:`ciphersweep.launch`), running one point
(:mod:`ciphersweep.runner`), gathering records (:mod:`ciphersweep.records`), tables
(:mod:`ciphersweep.tables`) and plots (:mod:`ciphersweep.plots`).
"""

__version__ = "0.1.0"
