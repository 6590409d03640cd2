#!/usr/bin/env bash
# The one way kernels are built natively (used by the Makefile, the tests and the
# workflow's build rule): scripts/build-kernels.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../kernels" && pwd)
build=${1:-build/kernels}
mkdir -p "$build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release ${CIPHERSWEEP_CMAKE_ARGS:-} >"${build%/}.configure.log" 2>&1 \
  || { cat "${build%/}.configure.log" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)"
