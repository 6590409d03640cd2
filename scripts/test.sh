#!/usr/bin/env bash
# The whole test suite (what `make test` and CI run): installs what it needs, builds the
# kernels, then runs the C tests (ctest), the linters and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
# NVIDIA's nvml.h (PyPI nvidia-nvml-dev, pinned in requirements.txt) lets the build check
# the NVML signatures aes-cuda uses, where the CUDA toolkit ships no NVML header.
nvml_h=$(ls .venv/lib/python3*/site-packages/nvidia/cu*/include/nvml.h 2>/dev/null | head -n 1)
CIPHERSWEEP_CMAKE_ARGS="${CIPHERSWEEP_CMAKE_ARGS:-}${nvml_h:+ -DCS_NVML_INCLUDE_DIR=$(dirname "$nvml_h")}" \
  scripts/build-kernels.sh build/kernels
(cd build/kernels && ctest --output-on-failure -j 2)
.venv/bin/ruff check workflow tests
.venv/bin/snakefmt --check Snakefile workflow/rules
.venv/bin/pytest -ra tests "$@"
