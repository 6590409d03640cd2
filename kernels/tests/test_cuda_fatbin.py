#!/usr/bin/env python3
"""Check that a CUDA executable carries device code (SASS) for the given SM architectures.

    test_cuda_fatbin.py BINARY 80 90

Reads the fat binaries embedded in the executable (container magic 0xBA55ED50; each
entry: u16 kind (1 PTX, 2 ELF/SASS), u16 version, u32 header size, u64 payload size,
u32 compressed size, u32, u16 minor, u16 major, u32 sm arch), the layout cuobjdump
reads. Where cuobjdump is installed, its `--list-elf` output is checked as well.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys

MAGIC = 0xBA55ED50
KINDS = {1: "ptx", 2: "elf"}


def entries(blob: bytes) -> list[tuple[str, int]]:
    """(kind, sm) of every entry of every fat binary container in blob."""
    found: list[tuple[str, int]] = []
    pos = 0
    magic = struct.pack("<I", MAGIC)
    while True:
        pos = blob.find(magic, pos)
        if pos < 0 or pos + 16 > len(blob):
            return found
        _, version, hsize, fatsize = struct.unpack_from("<IHHQ", blob, pos)
        if (
            version != 1
            or hsize != 16
            or fatsize == 0
            or pos + 16 + fatsize > len(blob)
        ):
            pos += 4
            continue
        entry, end = pos + 16, pos + 16 + fatsize
        while entry + 32 <= end:
            kind, _, ehsize, payload = struct.unpack_from("<HHIQ", blob, entry)
            (arch,) = struct.unpack_from("<I", blob, entry + 28)
            if kind not in KINDS or ehsize < 32 or entry + ehsize + payload > end:
                break
            found.append((KINDS[kind], arch))
            entry += ehsize + payload
        pos = end


def main(argv: list[str]) -> int:
    binary, wanted = argv[1], sorted(int(a) for a in argv[2:])
    with open(binary, "rb") as f:
        found = entries(f.read())
    sass = sorted({sm for kind, sm in found if kind == "elf"})
    ptx = sorted({sm for kind, sm in found if kind == "ptx"})
    print(
        f"{binary}: SASS for sm_{', sm_'.join(map(str, sass)) or '-'}; "
        f"PTX for compute_{', compute_'.join(map(str, ptx)) or '-'}"
    )
    failed = [sm for sm in wanted if sm not in sass]
    for sm in failed:
        print(f"FAIL: no SASS for sm_{sm}")
    if not failed and ptx and max(ptx) < max(wanted):
        print(f"FAIL: newest PTX is compute_{max(ptx)}, expected compute_{max(wanted)}")
        failed.append(max(wanted))
    tool = shutil.which("cuobjdump")
    if tool:
        out = subprocess.run(
            [tool, "--list-elf", binary], capture_output=True, text=True, check=False
        ).stdout
        for sm in wanted:
            if f"sm_{sm}" not in out:
                print(f"FAIL: cuobjdump --list-elf does not list sm_{sm}")
                failed.append(sm)
    passed = len(wanted) - len(set(failed))
    print(f"test_cuda_fatbin: {passed} passed, {len(set(failed))} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
