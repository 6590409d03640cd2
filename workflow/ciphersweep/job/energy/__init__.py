"""Energy of a benchmark job: which source measures it, and why not the others.

Sources, in the order they are tried for a benchmark job (the probe runs ONCE per job
and nothing is cached across jobs):

1. ``likwid``: the kernels carry likwid's Marker API around the timed region (region
   ``"aes"``) and the launch line runs them under
   ``likwid-perfctr -m -g ENERGY -C <pinned cores> -O -o <file>.csv``; the CSV is parsed
   here and merged into the records (:func:`merge_likwid`). Not used for MPI points
   (one likwid-perfctr per rank measures the same socket-wide counters several times;
   the kernels' node-leader RAPL reader is used instead) nor for CUDA points (NVML).
2. ``rapl``: the kernel reads the powercap sysfs tree itself (``--energy auto``)
   immediately before and after the timed region. The probe only checks that the tree
   is there and ``energy_uj`` is readable, with the same root the C reader uses
   (``$CIPHERSWEEP_POWERCAP_ROOT`` or ``/sys/class/powercap``).
3. ``nvml``: aes-cuda reads the GPU's energy counter itself.
4. none: ``joules`` null and a note saying why. Never 0, never a guess, and a missing
   source never stops the timing run.

Modules: :mod:`.probe` (the decision, once per job, and the records finished after the
kernel ran), :mod:`.likwid` (likwid-perfctr's check, wrapper and merge),
:mod:`.likwid_csv` (its CSV parser), :mod:`.classify` (its failures as one reason),
:mod:`.powercap` (RAPL sysfs), :mod:`.nvml` (the GPU's library), :mod:`.cores` (pinning),
:mod:`.source` (the check and probe types). The names callers use are importable from
this package.
"""

from __future__ import annotations

from ciphersweep.job.energy.classify import classify_likwid_failure
from ciphersweep.job.energy.cores import allowed_cores, cores_for, format_cpulist
from ciphersweep.job.energy.likwid import (
    check_likwid,
    likwid_csv_path,
    merge_likwid,
    wrapper,
)
from ciphersweep.job.energy.likwid_csv import likwid_energy, parse_likwid_csv
from ciphersweep.job.energy.nvml import check_nvml
from ciphersweep.job.energy.powercap import (
    POWERCAP_ENV,
    PowercapZone,
    check_rapl,
    energy_delta_uj,
    powercap_root,
    read_powercap,
)
from ciphersweep.job.energy.probe import annotate, kernel_flag, probe
from ciphersweep.job.energy.source import (
    EXCLUSIVE_CAVEAT,
    LIKWID_GROUP,
    LIKWID_REGION,
    MODES,
    Probe,
    SourceCheck,
)

__all__ = [
    "EXCLUSIVE_CAVEAT",
    "LIKWID_GROUP",
    "LIKWID_REGION",
    "MODES",
    "POWERCAP_ENV",
    "PowercapZone",
    "Probe",
    "SourceCheck",
    "allowed_cores",
    "annotate",
    "check_likwid",
    "check_nvml",
    "check_rapl",
    "classify_likwid_failure",
    "cores_for",
    "energy_delta_uj",
    "format_cpulist",
    "kernel_flag",
    "likwid_csv_path",
    "likwid_energy",
    "merge_likwid",
    "parse_likwid_csv",
    "powercap_root",
    "probe",
    "read_powercap",
    "wrapper",
]
