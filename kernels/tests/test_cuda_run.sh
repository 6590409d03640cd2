#!/usr/bin/env bash
# aes-cuda on a real GPU: every mode/op/padding edge, block sizes, key sizes, the
# --output bytes against `openssl enc`, a forced verification failure, and the record's
# GPU fields (copy/kernel times, NVML energy split). Exits 77 (ctest: skipped) with the
# reason when no CUDA device is present.
#   test_cuda_run.sh AES_CUDA_BINARY
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

probe_err=$("$bin" --size 16 --reps 1 --warmup 0 --energy none 2>&1 >/dev/null)
rc=$?
if [[ $rc -eq 3 ]]; then
  echo "SKIP: ${probe_err#aes-cuda: }"
  exit 77
fi

check_records() { # check_records FILE NREPS
  python3 - "$1" "$2" <<'PY'
import json, math, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == int(sys.argv[2]), f"{len(recs)} records"
for r in recs:
    assert r["backend"] == "cuda" and r["impl"] == "gpu-ttable" and r["gpu"] == 1, r
    assert r["verified"] is True and r["clock"] == "cudaEvent", r
    assert r["gpu_model"] and r["gpu_driver"], r
    for k in ("t_total", "t_compute", "t_h2d", "t_d2h", "t_keyexp"):
        assert isinstance(r[k], (int, float)) and r[k] >= 0, (k, r[k])
    parts = r["t_h2d"] + r["t_compute"] + r["t_d2h"]
    assert r["t_total"] >= 0.9 * parts, ("t_total < phases", r["t_total"], parts)
    if r["energy_source"] == "nvml":
        s = r["joules_h2d"] + r["joules_kernel"] + r["joules_d2h"]
        assert abs(r["joules_gpu"] - s) < 1e-9 and r["joules"] == r["joules_gpu"], r
        assert r["energy_scope"] == "gpu", r
    else:
        assert r["joules"] is None and r["energy_note"], r
PY
}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

run() { # run NAME ARGS... : exit 0 and well-formed records
  local name=$1
  shift
  if "$bin" --reps 2 --warmup 1 "$@" >"$tmp/r.jsonl" 2>"$tmp/err" && check_records "$tmp/r.jsonl" 2 2>>"$tmp/err"; then
    ok
  else
    bad "$name: $*"
    cat "$tmp/err" >&2
  fi
}

IV_CARRY=000102030405060708ffffffffffffffff
IV_CARRY=${IV_CARRY:0:16}ffffffffffffffff
for size in 1 15 16 17 4096 1048624; do
  run "ctr enc $size" --mode ctr --size $size --iv $IV_CARRY
  run "ctr dec $size" --mode ctr --op decrypt --size $size
  run "ecb enc $size" --mode ecb --size $size
  run "ecb dec $size" --mode ecb --op decrypt --size $size
done
run "ecb nopad" --mode ecb --nopad --size 64KiB
run "ecb nopad dec" --mode ecb --nopad --op decrypt --size 64KiB
run "iv all ones" --mode ctr --size 100000 --iv ffffffffffffffffffffffffffffffff
for bt in 32 64 128 512 1024; do
  run "block threads $bt" --block-threads $bt --size 3MiB
done
run "aes-192-ecb" --cipher aes-192-ecb --size 70000
run "aes-256-ctr" --cipher aes-256-ctr --size 70001
run "aes-256-ecb dec" --cipher aes-256-ecb --op decrypt --size 70000
run "energy rapl" --energy rapl --size 1MiB
run "energy none" --energy none --size 1MiB
run "device 0" --device 0 --size 1MiB
run "large" --size 64MiB

# The result bytes are exactly what `openssl enc` produces.
if command -v openssl >/dev/null; then
  key=000102030405060708090a0b0c0d0e0f iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
  "$bin" --gen-input "$tmp/in.bin" --size 100003 --seed 7
  for m in ctr ecb; do
    extra=(); [[ $m == ctr ]] && extra=(-iv $iv)
    openssl enc -aes-128-$m -K $key "${extra[@]}" -in "$tmp/in.bin" -out "$tmp/ref.$m"
    if "$bin" --mode $m --input "$tmp/in.bin" --output "$tmp/out.$m" --reps 1 --warmup 0 >/dev/null \
      && cmp -s "$tmp/out.$m" "$tmp/ref.$m"; then ok; else bad "--output $m differs from openssl enc"; fi
    # and decrypting openssl's ciphertext as given
    if "$bin" --mode $m --op decrypt --ciphertext-input --input "$tmp/ref.$m" --output "$tmp/dec.$m" \
         --reps 1 --warmup 0 >/dev/null && cmp -s "$tmp/dec.$m" "$tmp/in.bin"; then ok
    else bad "--ciphertext-input $m"; fi
  done
fi

# A corrupted result must fail verification, print no record and exit 1.
"$bin" --size 1MiB --inject-fault corrupt >"$tmp/f.out" 2>"$tmp/f.err"
rc=$?
if [[ $rc -eq 1 && ! -s $tmp/f.out ]] && grep -q 'verification FAILED: first differing block' "$tmp/f.err"; then
  ok
else
  bad "inject-fault: rc=$rc"; cat "$tmp/f.err" >&2
fi

echo "test_cuda_run: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
