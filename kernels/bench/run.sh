#!/usr/bin/env bash
# Kernel benchmark (not a test): prints the ratios of the AES kernels against OpenSSL
# side by side.  Usage: kernels/bench/run.sh [BUILD_DIR] [--quick|--rounds N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/kernels}
shift || true
[ -x "$build/aes-seq" ] || "$here/../../scripts/build-kernels.sh" "$build"
exec python3 "$here/bench.py" --build "$build" "$@"
