#!/usr/bin/env python3
"""aes-cpu-limits (the kernel benchmark's AES-instruction limits) on this CPU: one JSON
object; a plausible core clock; where the CPU has AES-NI (VAES), AESENC (VAESENC ymm)
instructions per cycle in a plausible range and the limit = IPC x register bytes / 10.

Usage: test_cpu_limits.py AES_CPU_LIMITS_BINARY
"""

import json
import subprocess
import sys
from pathlib import Path

out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
d = json.loads(out)
fails = []
if not 0.2 < d["clock_ghz"] < 10:
    fails.append(f"clock {d['clock_ghz']} GHz")
cpu = Path("/proc/cpuinfo").read_text().split()
for flag, ipc, limit, width in (
    ("aes", "aesenc_xmm_ipc", "limit_aesni_bpc", 16),
    ("vaes", "vaesenc_ymm_ipc", "limit_vaes256_bpc", 32),
):
    if flag not in cpu:
        if d[ipc] is not None:
            fails.append(f"{ipc} measured without {flag}")
        continue
    if d[ipc] is None or not 0.1 < d[ipc] < 8:
        fails.append(f"{ipc} = {d[ipc]}")
    elif abs(d[limit] - d[ipc] * width / 10) > 0.01:
        fails.append(f"{limit} = {d[limit]} != {ipc} x {width} / 10")
print(out.strip())
print("test_cpu_limits: " + ("; ".join(fails) if fails else "ok"))
sys.exit(1 if fails else 0)
