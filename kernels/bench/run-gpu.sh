#!/usr/bin/env bash
# GPU benchmark (not a test): aes-cuda's kernel and end-to-end throughput against the
# copy limit measured on the same machine and the host's multi-core OpenSSL.
# Usage: kernels/bench/run-gpu.sh [BUILD_DIR] [--quick|--size SIZE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/kernels}
shift || true
# the two binaries it runs (a campaign's build directory may hold only its own backends)
[ -x "$build/aes-cuda" ] && [ -x "$build/aes-cuda-copylimit" ] ||
  "$here/../../scripts/build-kernels.sh" "$build"
exec python3 "$here/gpu_bench.py" --build "$build" "$@"
