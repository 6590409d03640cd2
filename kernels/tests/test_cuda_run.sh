#!/usr/bin/env bash
# aes-cuda on a real GPU: every impl x mode/op/padding edge x key size, block sizes,
# overlapped copies (chunk boundaries at odd offsets, more streams than chunks, counter
# carry), the --output bytes against `openssl enc`, a forced verification failure, and
# the record's GPU fields (copy/kernel times, the NVML energy window: count, window >=
# its resolution, J > 0, never 0). Exits 77 (ctest: skipped) with the reason when no
# CUDA device is present.
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

check_records() { # check_records FILE NREPS IMPL
  python3 - "$1" "$2" "$3" <<'PY'
import json, math, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == int(sys.argv[2]), f"{len(recs)} records"
for r in recs:
    assert r["backend"] == "cuda" and r["impl"] == sys.argv[3] and r["gpu"] == 1, r
    for k, v in r.items():
        if k.startswith("joules"):
            assert v is None or v > 0, ("0 J is never recorded", k, v)
    assert r["verified"] is True and r["clock"] == "cudaEvent", r
    assert r["gpu_model"] and r["gpu_driver"], r
    for k in ("t_total", "t_compute", "t_h2d", "t_d2h", "t_keyexp"):
        assert isinstance(r[k], (int, float)) and r[k] >= 0, (k, r[k])
    parts = r["t_h2d"] + r["t_compute"] + r["t_d2h"]
    if r["streams"] == 1:
        assert r["t_total"] >= 0.9 * parts, ("t_total < phases", r["t_total"], parts)
    else:  # overlapped: the wall time is at most the sum of the phases (plus overheads)
        assert r["t_total"] > 0 and r["chunk_bytes"] and r["streams_used"] >= 1, r
    if r["joules"] is not None:
        assert r["energy_source"] == "nvml" and r["energy_scope"] == "gpu", r
        assert r["joules"] == r["joules_gpu"], r
        assert r["energy_window_reps"] >= 1 and r["energy_window_s"] >= 1.0, r
        assert r["energy_window_kernel_reps"] >= 1 and r["energy_window_kernel_s"] >= 1.0, r
        assert r["energy_window_basis"] in ("1 s", "10 counter updates"), r
        assert r["energy_window_s"] >= 10 * r["nvml_update_s"] - 1e-9, r
        assert r["joules_kernel"] > 0, r
    else:
        assert r["energy_note"], r
PY
}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

IMPL=gpu-lanes
run() { # run NAME ARGS... : exit 0 and well-formed records (energy off unless asked)
  local name=$1
  shift
  if "$bin" --impl $IMPL --energy none --reps 2 --warmup 1 "$@" >"$tmp/r.jsonl" 2>"$tmp/err" \
     && check_records "$tmp/r.jsonl" 2 $IMPL 2>>"$tmp/err"; then
    ok
  else
    bad "$name: $*"
    cat "$tmp/err" >&2
  fi
}

IV_CARRY=000102030405060708ffffffffffffffff
IV_CARRY=${IV_CARRY:0:16}ffffffffffffffff
for IMPL in gpu-lanes gpu-ttable gpu-ref; do
  for size in 1 15 16 17 4097 1048624; do
    run "$IMPL ctr enc $size" --mode ctr --size $size --iv $IV_CARRY
    run "$IMPL ctr dec $size" --mode ctr --op decrypt --size $size
    run "$IMPL ecb enc $size" --mode ecb --size $size
    run "$IMPL ecb dec $size" --mode ecb --op decrypt --size $size
  done
  for c in aes-192-ecb aes-256-ecb aes-192-ctr aes-256-ctr; do
    run "$IMPL $c" --cipher $c --size 70001 --iv $IV_CARRY
    run "$IMPL $c dec" --cipher $c --op decrypt --size 70000
  done
  # overlapped: 48-byte chunks (boundaries inside odd-sized data), more streams than
  # chunks, the counter's low 64 bits carrying inside the message
  run "$IMPL streams 4 chunk 48" --streams 4 --chunk 48 --size 4097 --iv $IV_CARRY
  run "$IMPL streams 3 ecb" --streams 3 --chunk 4KiB --mode ecb --size 100003
  run "$IMPL streams 3 ecb dec" --streams 3 --chunk 4KiB --mode ecb --op decrypt --size 100000
  run "$IMPL streams 8 > chunks" --streams 8 --chunk 1MiB --size 1048624
  run "$IMPL streams 4 large" --streams 4 --chunk 4MiB --size 64MiB --iv ffffffffffffffffffffffffffffff00
done
IMPL=gpu-lanes
run "ecb nopad" --mode ecb --nopad --size 64KiB
run "ecb nopad dec" --mode ecb --nopad --op decrypt --size 64KiB
run "iv all ones" --mode ctr --size 100000 --iv ffffffffffffffffffffffffffffffff
for bt in 32 64 128 512 1024; do
  run "block threads $bt" --block-threads $bt --size 3MiB
done
run "energy rapl" --energy rapl --size 1MiB
# the NVML energy window (where NVML exists): J per repetition > 0, window >= resolution
run "energy window serial" --energy auto --size 64MiB
run "energy window overlapped" --energy auto --streams 4 --size 64MiB
run "energy window small" --energy auto --size 4KiB
run "device 0" --device 0 --size 1MiB
run "large" --size 64MiB

# The result bytes are exactly what `openssl enc` produces.
if command -v openssl >/dev/null; then
  key=000102030405060708090a0b0c0d0e0f iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
  "$bin" --gen-input "$tmp/in.bin" --size 100003 --seed 7
  for m in ctr ecb; do
    extra=(); [[ $m == ctr ]] && extra=(-iv $iv)
    openssl enc -aes-128-$m -K $key "${extra[@]}" -in "$tmp/in.bin" -out "$tmp/ref.$m"
    if "$bin" --energy none --mode $m --input "$tmp/in.bin" --output "$tmp/out.$m" --reps 1 --warmup 0 >/dev/null \
      && cmp -s "$tmp/out.$m" "$tmp/ref.$m"; then ok; else bad "--output $m differs from openssl enc"; fi
    # and decrypting openssl's ciphertext as given
    if "$bin" --energy none --mode $m --op decrypt --ciphertext-input --input "$tmp/ref.$m" --output "$tmp/dec.$m" \
         --reps 1 --warmup 0 >/dev/null && cmp -s "$tmp/dec.$m" "$tmp/in.bin"; then ok
    else bad "--ciphertext-input $m"; fi
  done
fi

# A corrupted result must fail verification, print no record and exit 1 (serial and
# overlapped).
for extra in "--streams 1" "--streams 4 --chunk 64KiB"; do
  # shellcheck disable=SC2086
  "$bin" --energy none --size 1MiB $extra --inject-fault corrupt >"$tmp/f.out" 2>"$tmp/f.err"
  rc=$?
  if [[ $rc -eq 1 && ! -s $tmp/f.out ]] && grep -q 'verification FAILED: first differing block' "$tmp/f.err"; then
    ok
  else
    bad "inject-fault $extra: rc=$rc"; cat "$tmp/f.err" >&2
  fi
done

echo "test_cuda_run: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
