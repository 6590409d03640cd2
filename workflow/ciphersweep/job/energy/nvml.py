"""The NVIDIA management library, aes-cuda's energy source."""

from __future__ import annotations

import ctypes
import ctypes.util

from ciphersweep.job.energy.source import SourceCheck


def check_nvml() -> SourceCheck:
    """Whether the NVIDIA management library (aes-cuda's energy source) is present."""
    name = ctypes.util.find_library("nvidia-ml")
    candidates = [name] if name else []
    candidates += ["libnvidia-ml.so.1"]
    for lib in candidates:
        try:
            ctypes.CDLL(lib)
        except OSError:
            continue
        return SourceCheck("nvml", True, None, {"library": lib})
    return SourceCheck("nvml", False, "nvml: libnvidia-ml not found (no NVIDIA driver)")
