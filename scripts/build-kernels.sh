#!/usr/bin/env bash
# The one way kernels are built natively (used by the Makefile, the tests and the
# workflow's build rule): scripts/build-kernels.sh [BUILD_DIR [CMAKE_ARG ...]]
# Each CMAKE_ARG reaches cmake as one argument (e.g. "-DCMAKE_C_FLAGS=-O1 -march=native");
# CIPHERSWEEP_CMAKE_ARGS adds space-separated options (site settings, the test suite);
# CIPHERSWEEP_BUILD_TARGETS (space-separated, e.g. "aes-seq aes-omp") builds only those.
set -euo pipefail
src=$(cd "$(dirname "$0")/../kernels" && pwd)
build=${1:-build/kernels}
shift || true
mkdir -p "$build"
# shellcheck disable=SC2086 # CIPHERSWEEP_CMAKE_ARGS is a space-separated list on purpose
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release ${CIPHERSWEEP_CMAKE_ARGS:-} "$@" >"${build%/}.configure.log" 2>&1 \
  || { cat "${build%/}.configure.log" >&2; exit 1; }
targets=()
for t in ${CIPHERSWEEP_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
