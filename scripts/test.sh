#!/usr/bin/env bash
# The whole test suite (what `make test` and CI run): installs what it needs, builds the
# kernels, then runs the C tests (ctest), the linters and pytest.
#
# Quiet by default: each stage prints one line (what it does, roughly how long it takes,
# then how long it took) and keeps its output in build/test-logs/<stage>.log, shown when
# the stage fails. CIPHERSWEEP_VERBOSE=1 prints every stage's output as it comes.
# Arguments go to pytest (e.g. `scripts/test.sh -k report -x`).
set -euo pipefail
cd "$(dirname "$0")/.."
logs=build/test-logs
mkdir -p "$logs"
start=$SECONDS

stage() { # stage NAME "WHAT (ABOUT)" COMMAND...
  local name=$1 what=$2 t0=$SECONDS rc=0
  shift 2
  if [ "${CIPHERSWEEP_VERBOSE:-0}" != 0 ]; then
    echo "==> $what"
    "$@" 2>&1 | tee "$logs/$name.log" || rc=${PIPESTATUS[0]}
  else
    printf '==> %s ... ' "$what"
    "$@" >"$logs/$name.log" 2>&1 || rc=$?
  fi
  if [ "$rc" != 0 ]; then
    echo "FAILED after $((SECONDS - t0)) s (exit $rc); the end of $logs/$name.log:"
    tail -n 60 "$logs/$name.log"
    exit "$rc"
  fi
  [ "${CIPHERSWEEP_VERBOSE:-0}" != 0 ] || echo "done in $((SECONDS - t0)) s"
}

# The kernels' cmake settings of the whole suite: the build stage and every build a test
# campaign makes. NVIDIA's nvml.h (PyPI nvidia-nvml-dev, pinned in requirements.txt) lets
# the build check the NVML signatures aes-cuda uses, where the CUDA toolkit ships no NVML
# header; ccache (apt-test.txt) serves the builds the suite makes of the same sources
# again. Neither changes a binary, a recorded flag or a build key.
suite_cmake_args() {
  local nvml_h args=${CIPHERSWEEP_CMAKE_ARGS:-}
  nvml_h=$(ls .venv/lib/python3*/site-packages/nvidia/cu*/include/nvml.h 2>/dev/null | head -n 1)
  [ -z "$nvml_h" ] || args+=" -DCS_NVML_INCLUDE_DIR=$(dirname "$nvml_h")"
  if command -v ccache >/dev/null; then
    args+=" -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
  fi
  echo "${args# }"
}

stage setup "setup: system packages and .venv (minutes on a fresh machine, else seconds)" \
  scripts/setup.sh test
CIPHERSWEEP_CMAKE_ARGS=$(suite_cmake_args)
# (paths under the checkout hashed as relative ones: another clone's build stage hits)
CCACHE_BASEDIR=$PWD
export CIPHERSWEEP_CMAKE_ARGS CCACHE_BASEDIR
# The tests that give CIPHERSWEEP_CMAKE_ARGS values of their own (what they test) still
# build through ccache: CMake takes a new build tree's launchers from these variables.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
stage kernels "building the kernels (about 1-2 min)" scripts/build-kernels.sh build/kernels
# The C tests run beside the linters and pytest (their MPI checks start up to 32 ranks
# on two cores, mostly waiting for each other, as the Slurm modules wait for their
# scheduler), niced: pytest's workers collecting the tests come first. Their result is
# waited for before the quiet stage, which has the machine to itself.
echo "==> C tests: known answers, OpenSSL cross-checks, ARM builds under qemu (about 1 min, beside the next stages)"
(cd build/kernels && exec nice -n 10 ctest --output-on-failure -j 2) >"$logs/ctest.log" 2>&1 &
ctest_pid=$!
trap 'kill "$ctest_pid" 2>/dev/null || true' EXIT
ctest_result() { # the C tests' result, once they have ended
  local rc=0
  wait "$ctest_pid" || rc=$?
  trap - EXIT
  if [ "$rc" != 0 ]; then
    echo "==> C tests FAILED (exit $rc); the end of $logs/ctest.log:"
    tail -n 60 "$logs/ctest.log"
    exit "$rc"
  fi
  echo "==> C tests passed ($(grep -o 'Total Test time (real) = .*' "$logs/ctest.log" || echo "$logs/ctest.log"))"
}
stage lint "ruff (check and format) and snakefmt (seconds)" \
  sh -c '.venv/bin/ruff check workflow tests kernels plugins && .venv/bin/ruff format --check workflow tests kernels plugins && .venv/bin/snakefmt --check Snakefile workflow/rules'
# pytest reports as it goes: each test folder announces itself with what it does and
# roughly how long it takes alone (tests/conftest.py). The tests run in
# CIPHERSWEEP_TEST_WORKERS pytest-xdist processes (default 4; `--dist loadfile` keeps
# each module, with its own test cluster or campaign run, in one worker, and the
# longest modules start first, tests/conftest.py): the six Slurm modules, each with a
# private cluster of its own, spend much of their time waiting for the scheduler while
# the other workers use the cores. CIPHERSWEEP_TEST_WORKERS=0 runs everything one
# after another in this process.
workers=${CIPHERSWEEP_TEST_WORKERS:-4}
# --durations: the slowest tests at the end of the log, where the time goes
pytest=(.venv/bin/pytest -ra --durations=15 --dist loadfile --no-loadscope-reorder)
if [ "$workers" = 0 ]; then
  echo "==> pytest in one process (about 45 min on 2 cores; the slowest parts say so when they start)"
  "${pytest[@]}" -n 0 tests "$@"
  ctest_result
else
  # The modules marked `quiet` compare timings of separate runs of their own: they run
  # afterwards, in one process, with the machine to themselves (exit status 5: the
  # arguments selected none of them).
  echo "==> pytest in $workers workers (about 11 min on 2 cores; the folders run side by side and announce themselves when they start)"
  "${pytest[@]}" -n "$workers" -m "not quiet" tests "$@"
  ctest_result
  echo "==> pytest, the tests that compare timings between runs, alone (about 1 min)"
  # Without arguments, only the modules that mark tests quiet are collected: collecting
  # the whole tree costs this stage seconds while the machine waits for it alone.
  quiet=(tests)
  [ "$#" != 0 ] || mapfile -t quiet < <(grep -rl --include='test_*.py' 'mark\.quiet' tests)
  rc=0
  "${pytest[@]}" -n 0 -m quiet "${quiet[@]}" "$@" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 5 ] || exit "$rc"
fi
echo "==> all tests passed in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
