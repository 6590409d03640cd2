#!/usr/bin/env bash
# Stops the private cluster started by tests/cluster/up.sh STATE_DIR: cancels its jobs,
# stops the daemons by PID (reverse start order, TERM then KILL), stops every process
# left in its namespaces or holding a file in STATE_DIR, and removes the network
# namespaces and links it made. Safe to run twice.
#   tests/cluster/down.sh STATE_DIR [--purge]     (--purge also removes STATE_DIR)
set -uo pipefail

die() { echo "cluster/down: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: $0 STATE_DIR [--purge]"
[ -d "$1" ] || { echo "cluster/down: $1: no such state dir (nothing to stop)"; exit 0; }
state=$(cd "$1" && pwd)
purge=${2:-}
rc=0

alive() { kill -0 "$1" 2>/dev/null; }

stop_pid() { # name pid
  local name=$1 pid=$2 i
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 150; i++)); do alive "$pid" || return 0; sleep 0.1; done
  echo "cluster/down: $name ($pid) ignored TERM for 15 s; sending KILL" >&2
  kill -KILL "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do alive "$pid" || return 0; sleep 0.1; done
  echo "cluster/down: $name ($pid) still alive" >&2
  rc=1
}

# 1. Cancel the cluster's jobs while the controller still runs, and give them time to end.
if [ -f "$state/run/slurmctld.pid" ] && alive "$(cat "$state/run/slurmctld.pid")" \
  && [ -f "$state/etc/slurm.conf" ]; then
  export SLURM_CONF=$state/etc/slurm.conf
  jobs=$(timeout 10 squeue -h -o %i 2>/dev/null)
  [ -n "$jobs" ] && timeout 20 scancel $jobs >/dev/null 2>&1
  for ((i = 0; i < 50; i++)); do
    [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
fi

# 2. Daemons, newest first, in three waves: the slurmds and slurmctld, then slurmdbd (it
#    takes the controller's last messages), then mariadbd and munged.
pids_of() { awk -v n="$1" '$1 == n || index($1, n "-") == 1 {print $2}' "$state/pids" 2>/dev/null; }
for wave in "slurmd slurmctld" "slurmdbd" "mariadbd munged"; do
  for name in $wave; do
    for pid in $(pids_of "$name"); do stop_pid "$name" "$pid" & done
  done
  wait
done
# Daemons whose PID file exists but that were not recorded (up.sh failed half-way).
for p in "$state"/run/*.pid; do
  [ -f "$p" ] || continue
  pid=$(cat "$p" 2>/dev/null) || continue
  [ -n "$pid" ] && stop_pid "$(basename "$p" .pid)" "$pid"
done

# 3. Anything still running in one of the cluster's namespaces or holding a file in the
#    state dir (job step daemons, job processes) is ours.
netns_list() { awk '$1 == "netns" {print $2}' "$state/net" 2>/dev/null; }
leftovers() {
  local d pid ns
  for ns in $(netns_list); do ip netns pids "$ns" 2>/dev/null; done
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = $$ ] && continue
    if ls -l "$d/fd" "$d/cwd" 2>/dev/null | grep -qF " -> $state/"; then echo "$pid"; fi
  done
}
for sig in TERM KILL; do
  pids=$(leftovers | sort -u)
  [ -z "$pids" ] && break
  echo "cluster/down: stopping leftover processes ($sig): $(echo $pids)" >&2
  kill -"$sig" $pids 2>/dev/null
  sleep 1
done
pids=$(leftovers | sort -u)
if [ -n "$pids" ]; then
  echo "cluster/down: processes still hold files in $state: $pids" >&2
  rc=1
fi

# 4. Network namespaces and links (deleting a namespace deletes the veth ends in it).
if [ -f "$state/net" ]; then
  for ns in $(netns_list); do
    ip netns del "$ns" 2>/dev/null || { ip netns list | grep -qw "$ns" && { echo "cluster/down: could not remove netns $ns" >&2; rc=1; }; }
  done
  # The kernel tears a deleted namespace down asynchronously, taking the host ends of
  # its veth pairs with it: a link may vanish between `show` and `del`. Only one still
  # there a few seconds later is a failure.
  for l in $(awk '$1 == "link" {print $2}' "$state/net" | tac); do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      ip link show "$l" >/dev/null 2>&1 || break
      ip link del "$l" 2>/dev/null || sleep 0.5
    done
    ip link show "$l" >/dev/null 2>&1 && { echo "cluster/down: could not remove link $l" >&2; rc=1; }
  done
  for l in $(awk '$1 == "symlink" {print $2}' "$state/net"); do
    [ "$(readlink "$l" 2>/dev/null)" = "$state" ] && rm -f "$l"
  done
  [ $rc -eq 0 ] && : > "$state/net"
fi

if [ "$purge" = --purge ] && [ $rc -eq 0 ]; then
  rm -rf "$state"
fi
[ $rc -eq 0 ] && echo "cluster down: $state"
exit $rc
