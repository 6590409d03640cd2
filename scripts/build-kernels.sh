#!/usr/bin/env bash
# The one way kernels are built natively (used by the Makefile, the tests and the
# workflow's build rule): scripts/build-kernels.sh [BUILD_DIR [CMAKE_ARG ...]]
# Each CMAKE_ARG reaches cmake as one argument (e.g. "-DCMAKE_C_FLAGS=-O1 -march=native");
# CIPHERSWEEP_CMAKE_ARGS adds space-separated options (site settings, the test suite),
# given before the CMAKE_ARGs; both, and the build environment (kernels/cmake/
# build-env.txt), are in the workflow's build key (ciphersweep.job.build);
# CIPHERSWEEP_BUILD_TARGETS (space-separated, e.g. "aes-seq aes-omp") builds only those.
set -euo pipefail
src=$(cd "$(dirname "$0")/../kernels" && pwd)
build=${1:-build/kernels}
shift || true
mkdir -p "$build"
# A CMake cache keeps every -D it was ever given: when the settings differ from the
# ones this tree was configured with, the cache goes, so a removed or changed flag can
# never live on in it (the build key, -DCS_BUILD_KEY=, changes with the sources and is
# simply set again).
# The environment CMake and the compiler read at configure time (CC, CFLAGS...; the
# names: kernels/cmake/build-env.txt) is part of the settings too.
build_env=$(grep -v '^#' "$src/cmake/build-env.txt" | while read -r n; do
  [ -z "$n" ] || [ -z "${!n+set}" ] || printf '%s=%s\n' "$n" "${!n}"
done)
settings=$(printf '%s\n' "${CIPHERSWEEP_CMAKE_ARGS:-}" "$@" "$build_env" | grep -v '^-DCS_BUILD_KEY=' || true)
if [ -f "$build/CMakeCache.txt" ] && { [ ! -f "$build/cs-settings.txt" ] ||
  [ "$(cat "$build/cs-settings.txt")" != "$settings" ]; }; then
  rm -f "$build/CMakeCache.txt"
fi
# A tree configured in another place (a copied or moved checkout or build directory)
# cannot be configured again where it is now: CMake refuses a cache made for another
# directory. Its cache and generated files go, and the kernels are built afresh.
if [ -f "$build/CMakeCache.txt" ]; then
  was_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
  was_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  if [ "$(realpath -m "$was_build")" != "$(realpath "$build")" ] ||
    [ "$(realpath -m "$was_src")" != "$(realpath "$src")" ]; then
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
  fi
fi
# no key given: none is recorded (never the key of an earlier build in this tree)
key=(-DCS_BUILD_KEY=)
for a in "$@"; do case $a in -DCS_BUILD_KEY=*) key=() ;; esac; done
# ... and the workflow's description of an earlier build here no longer holds
if [ ${#key[@]} -gt 0 ]; then rm -f "$build/build-info.json"; fi
# shellcheck disable=SC2086 # CIPHERSWEEP_CMAKE_ARGS is a space-separated list on purpose
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release ${CIPHERSWEEP_CMAKE_ARGS:-} "${key[@]}" "$@" >"${build%/}.configure.log" 2>&1 \
  || { cat "${build%/}.configure.log" >&2; exit 1; }
targets=()
for t in ${CIPHERSWEEP_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
printf '%s\n' "$settings" >"$build/cs-settings.txt"
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
