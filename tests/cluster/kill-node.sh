#!/usr/bin/env bash
# A compute node of the private cluster dies: every process in its namespaces (slurmd,
# slurmstepd, the job's processes) is killed with SIGKILL and its network link is taken
# down, as when a node loses power. slurmctld notices after SlurmdTimeout.
#   tests/cluster/kill-node.sh STATE_DIR NODE        (NODE: node1 .. nodeN)
set -uo pipefail
die() { echo "cluster/kill-node: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 STATE_DIR NODE"
state=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such state dir"
[[ "$2" =~ ^node([0-9]+)$ ]] || die "NODE: '$2' (allowed: node1 .. nodeN)"
i=${BASH_REMATCH[1]}
prefix=$(bash -c 'source "$1" && printf %s "$CS_NETNS_PREFIX"' _ "$state/env")
ns="$prefix-n$i"
grep -qx "netns $ns" "$state/net" || die "$2: not a node of the cluster in $state"
ip -n "$ns" link set eth0 down
ip link set "${prefix}h$i" down
for _ in 1 2 3 4 5; do
  pids=$(ip netns pids "$ns")
  [ -z "$pids" ] && break
  kill -KILL $pids 2>/dev/null
  sleep 0.2
done
[ -z "$(ip netns pids "$ns")" ] || die "processes survive in $ns: $(ip netns pids "$ns" | tr '\n' ' ')"
echo "node $2 killed (link down, no process left)"
