#!/usr/bin/env bash
# Write a cluster's env file: write-env.sh FILE KEY=VALUE ...
# Each value is shell-quoted (printf %q), so the file is valid shell: `source FILE` in
# bash sets every key to its value, spaces and brackets included (CS_NODES holds the
# node names separated by spaces). Tests read it the same way (shlex).
set -euo pipefail
file=$1
shift
{
  echo "# written by tests/cluster/up.sh"
  for kv in "$@"; do
    key=${kv%%=*}
    [[ $key =~ ^[A-Z_][A-Z0-9_]*$ ]] || { echo "write-env: bad key '$key'" >&2; exit 2; }
    printf '%s=%q\n' "$key" "${kv#*=}"
  done
} > "$file"
