#!/usr/bin/env bash
# aes-cuda's command line and its no-device path. CUDA_VISIBLE_DEVICES= hides every GPU,
# so the no-device checks run the same on machines with and without one.
#   test_cuda_cli.sh AES_CUDA_BINARY
set -uo pipefail
bin=$1
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect NAME WANT_RC STDERR_REGEX -- ARGS...
  local name=$1 want=$2 re=$3
  shift 4
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -eq $want ]] && grep -Eq -- "$re" "$tmp/err" && [[ $lines -eq 1 ]] && [[ ! -s $tmp/out ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: rc=$rc (want $want), stderr ($lines lines):" >&2
    cat "$tmp/err" >&2
  fi
}

export CUDA_VISIBLE_DEVICES=
expect no-device 3 '^aes-cuda: no CUDA device: .+' -- --size 1KiB
# the reason says what is missing: the driver (not loaded here), or a visible GPU
if [ -e /proc/driver/nvidia/version ]; then
  expect no-device-reason 3 '^aes-cuda: no CUDA device: no NVIDIA driver / no CUDA device \(the driver sees no GPU\)$' -- --size 1KiB
else
  expect no-driver-reason 3 '^aes-cuda: no CUDA device: no NVIDIA driver / no CUDA device \(the NVIDIA kernel driver is not loaded\)$' -- --size 1KiB
fi
expect no-device-ecb-decrypt 3 '^aes-cuda: no CUDA device: .+' -- --size 4KiB --mode ecb --op decrypt
expect bad-impl 2 "^aes-cuda: --impl: 'aesni' is not a GPU impl \(allowed: gpu-lanes, gpu-ttable, gpu-ref, auto\)$" -- --impl aesni --size 1KiB
for impl in gpu-lanes gpu-ttable gpu-ref auto; do
  expect "impl-$impl-no-device" 3 '^aes-cuda: no CUDA device: .+' -- --impl "$impl" --size 1KiB
done
expect streams-no-device 3 '^aes-cuda: no CUDA device: .+' -- --streams 4 --chunk 48 --size 1KiB
expect bad-streams 2 "^aes-cuda: --streams: '0' is not an integer in 1..64$" -- --streams 0 --size 1KiB
expect bad-streams-big 2 "^aes-cuda: --streams: '65' is not an integer in 1..64$" -- --streams 65
expect bad-chunk 2 "^aes-cuda: --chunk: '100' is not a size that is a multiple of 16 bytes" -- --chunk 100
expect bad-chunk-unit 2 "^aes-cuda: --chunk: '1XB' is not a size" -- --chunk 1XB
expect bad-block-threads 2 '^aes-cuda: --block-threads: ' -- --block-threads 0 --size 1KiB
expect bad-block-threads-big 2 '^aes-cuda: --block-threads: ' -- --block-threads 2048 --size 1KiB
expect bad-device 2 '^aes-cuda: --device: ' -- --device -1 --size 1KiB
expect bad-size 2 "^aes-cuda: --size: '12XB' is not a size" -- --size 12XB
expect bad-cipher 2 "^aes-cuda: --cipher: 'chacha20' is not supported here" -- --cipher chacha20
expect bad-threads 2 '^aes-cuda: --threads: ' -- --threads 2 --size 1KiB

"$bin" --help >"$tmp/help" 2>&1 && grep -q -- '--block-threads' "$tmp/help" && grep -q -- '--streams N, --chunk SIZE' "$tmp/help" && pass=$((pass + 1)) \
  || { fail=$((fail + 1)); echo "FAIL --help" >&2; }
"$bin" --version >"$tmp/ver" 2>&1 && grep -q 'sm_80,sm_90' "$tmp/ver" && pass=$((pass + 1)) \
  || { fail=$((fail + 1)); echo "FAIL --version:" >&2; cat "$tmp/ver" >&2; }
# --gen-input needs no GPU
"$bin" --gen-input "$tmp/in.bin" --size 1000 && [[ $(stat -c %s "$tmp/in.bin") -eq 1000 ]] && pass=$((pass + 1)) \
  || { fail=$((fail + 1)); echo "FAIL --gen-input" >&2; }

echo "test_cuda_cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
