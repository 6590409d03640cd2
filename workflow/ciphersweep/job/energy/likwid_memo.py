"""likwid-perfctr's lasting verdicts, kept across workflow processes.

Asking likwid-perfctr whether it can measure energy takes a second or more (it times
the CPU clock before anything else; about 3.6 s on a CPU it does not support). Local
runs ask once per workflow process, but under Slurm every job is a process of its own
and asked again. Two answers cannot change until the machine reboots or likwid is
replaced: *unsupported CPU* and *no ENERGY group for this CPU*. Those are kept in a
small file per machine state, under ``$XDG_CACHE_HOME/ciphersweep/likwid`` (default
``~/.cache``), named by a hash of what the answer depends on: the host name and boot
id, the user, likwid-perfctr's path and file identity, the cores asked about, and the
access likwid needs (the MSR device files, whether the kernel exposes hardware perf
events and its perf_event_paranoid). Two more answers last as long as that access is
the same, and are kept too: *no access to MSRs* and *no access to hardware perf
events* (loading the msr module, a udev rule or a sysctl changes the key, and likwid
is asked again). Any other answer (usable, a timeout, counters in use) is asked afresh
every time.
A cache that cannot be read or written is passed over: likwid is then simply asked.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

from ciphersweep.core.atomic import write_text
from ciphersweep.job.energy.classify import hardware_perf_events, perf_event_paranoid
from ciphersweep.job.energy.likwid import check_likwid
from ciphersweep.job.energy.source import LIKWID_GROUP, SourceCheck

LASTING = (
    "likwid: unsupported CPU",
    f"likwid: no {LIKWID_GROUP} group for this CPU",
    # (while the access facts in the key stay the same)
    "likwid: no access to MSRs",
    "likwid: no access to hardware perf events",
)
MSR_DEVICE = Path("/dev/cpu/0/msr")
# Answers that hold for every core of the machine while a run lasts (the lasting ones,
# and no access to the MSRs or perf events, or no likwid-perfctr at all): a process
# that asked about one set of cores does not ask again for another
MACHINE_WIDE = (*LASTING, "likwid: likwid-perfctr not installed")


def machine_wide(check: SourceCheck) -> bool:
    """Whether ``check`` answers for every core of the machine (see MACHINE_WIDE)."""
    return not check.ok and (check.reason or "").startswith(MACHINE_WIDE)


BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def cache_dir() -> Path:
    """Where the verdicts are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return Path(base) / "ciphersweep" / "likwid"


def machine_key(exe: str, cores: Sequence[int]) -> str | None:
    """A hash of what likwid's verdict depends on (None: the machine cannot be told
    apart from another, so nothing is kept)."""
    path = shutil.which(exe)
    if path is None:
        return None
    try:
        boot = BOOT_ID.read_text().strip()
        st = os.stat(path)
    except OSError:
        return None
    facts = [
        socket.gethostname(),
        boot,
        str(os.geteuid()),
        os.path.realpath(path),
        f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}",
        ",".join(str(int(c)) for c in cores),
        *access_facts(),
    ]
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:32]


def access_facts() -> list[str]:
    """What likwid's access to the counters depends on: the MSR device (present, its
    mode and owner), the kernel's hardware perf events and perf_event_paranoid."""
    try:
        st = os.stat(MSR_DEVICE)
        msr = f"msr {st.st_mode:o} {st.st_uid}:{st.st_gid}"
    except OSError:
        msr = "no msr device"
    return [
        msr,
        f"perf events {hardware_perf_events()}",
        f"paranoid {perf_event_paranoid()}",
    ]


def recall(key: str) -> SourceCheck | None:
    """The verdict kept under ``key`` (None: none, or unreadable)."""
    try:
        data = json.loads((cache_dir() / f"{key}.json").read_text())
        reason = data["reason"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(reason, str) or not reason.startswith(LASTING):
        return None
    detail = dict(data.get("detail") or {})
    detail["kept_from"] = str(cache_dir() / f"{key}.json")
    return SourceCheck("likwid", False, reason, detail)


def keep(key: str, check: SourceCheck) -> None:
    """Keep ``check`` under ``key`` when it is a lasting verdict."""
    if check.ok or not (check.reason or "").startswith(LASTING):
        return
    try:
        write_text(
            cache_dir() / f"{key}.json",
            json.dumps({"reason": check.reason, "detail": check.detail}),
        )
    except (OSError, TypeError, ValueError):
        pass  # not kept: likwid is asked again next time


def checked(
    cores: Sequence[int],
    timeout: float,
    *,
    exe: str = "likwid-perfctr",
    ask: Callable[..., SourceCheck] = check_likwid,
) -> SourceCheck:
    """likwid's verdict for ``cores``: a kept lasting one, or likwid asked (and its
    answer kept when it lasts)."""
    key = machine_key(exe, cores)
    if key is not None:
        kept = recall(key)
        if kept is not None:
            return kept
    found = ask(cores, timeout=timeout, exe=exe)
    if key is not None:
        keep(key, found)
    return found
