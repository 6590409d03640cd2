#!/usr/bin/env bash
# GPU benchmark (not a test): aes-cuda's kernel and end-to-end throughput against the
# copy limit measured on the same machine and the host's multi-core OpenSSL.
# Usage: kernels/bench/run-gpu.sh [BUILD_DIR] [--quick|--size SIZE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/kernels}
shift || true
[ -x "$build/aes-seq" ] || "$here/../../scripts/build-kernels.sh" "$build"
exec python3 "$here/gpu_bench.py" --build "$build" "$@"
