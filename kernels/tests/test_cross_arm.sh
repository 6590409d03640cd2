#!/usr/bin/env bash
# test_cross_arm.sh TRIPLET SOURCE_DIR BUILD_DIR: cross-compile the portable kernels
# (CS_PORTABLE_ONLY: AES core, Ascon, GCM; no OpenSSL, no runner) with Debian's
# TRIPLET-gcc and run their known-answer tests under qemu-user (the toolchain file sets
# CMAKE_CROSSCOMPILING_EMULATOR).  Exits 77 (skipped) only when the cross compiler or
# qemu is not installed (scripts/apt-test.txt installs both).
set -euo pipefail
triplet=$1 src=$2 build=$3
case $triplet in
  aarch64-linux-gnu) qemu=qemu-aarch64 arch="aarch64, 64-bit" ;;
  arm-linux-gnueabihf) qemu=qemu-arm arch="arm, 32-bit" ;;
  *) echo "test_cross_arm.sh: unknown triplet '$triplet' (allowed: aarch64-linux-gnu, arm-linux-gnueabihf)" >&2; exit 2 ;;
esac
for tool in "$triplet-gcc" "$qemu"; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (Debian: gcc-$triplet, qemu-user)"; exit 77; }
done
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/$triplet.cmake" \
  -DCS_PORTABLE_ONLY=ON -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j 2 >"$build.build.log" 2>&1 || { cat "$build.build.log" >&2; exit 1; }
cd "$build"
ctest --output-on-failure -V >ctest.log 2>&1 || { cat ctest.log; exit 1; }
grep -E 'checks passed|tested|skipped|tests passed' ctest.log
# the tests really ran as ARM code (test_ascon prints the architecture it was built for)
grep -q "ascon ($arch)" ctest.log || { echo "test_ascon did not run as $arch code" >&2; exit 1; }
