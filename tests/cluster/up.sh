#!/usr/bin/env bash
# Brings up a private Slurm cluster of N compute nodes on this machine, for tests and
# for trying the Slurm profile by hand.
#
#   tests/cluster/up.sh [--nodes N] [--cpus C] [--gpus G] [--mem MB] STATE_DIR
#   export SLURM_CONF=STATE_DIR/etc/slurm.conf      # clients (sbatch, squeue, snakemake)
#   tests/cluster/kill-node.sh STATE_DIR NODE       # a node dies (tests)
#   tests/cluster/down.sh STATE_DIR [--purge]       # stops and removes everything
#
# Each compute node is a slurmd in a network + UTS + mount namespace of its own: its own
# hostname (node1 .. nodeN) and address on a bridge this script creates; in its mount
# namespace the cluster's configuration is bind-mounted at /etc/slurm (and its host table
# at /etc/hosts), so everything the node starts (job steps, srun, mpirun) finds the
# cluster's files while the machine's /etc/slurm is never written. slurmctld, slurmdbd
# and MariaDB share one more network namespace ("ctl"); munged listens on a Unix socket
# in STATE_DIR. The only addresses used are those on the bridge (a free private /24 is
# chosen at bring-up) and loopback; as every daemon listens inside its own namespace, its
# ports can never collide with another Slurm on the machine.
#
# Every node declares C CPUs (default 8; config_overrides lets it declare more than the
# machine has), G fake GPUs (default 1) and MB MiB of memory (default 90% of the
# machine's). Needs root on Debian 12 with the packages of scripts/apt-test.txt.
#
# Knobs (environment): CS_SLURM_PORT_BASE (default 16817: slurmctld, +1 slurmd,
# +2 slurmdbd, +3 MariaDB), CS_SLURM_CPUS, CS_SLURM_NODES, CS_SLURM_PARTITION (default
# "debug"), CS_SLURM_CLUSTER (default "cstest"), CS_SLURM_ACCOUNTING (default "slurmdbd";
# "none": no MariaDB and no slurmdbd, as on clusters without accounting),
# CS_SLURM_MINJOBAGE (default 600 s: how long slurmctld keeps finished jobs, i.e. what
# squeue can see), CS_SLURM_SLURMDTIMEOUT (default 300 s, Slurm's own: how long a silent
# node takes to be declared DOWN; a test that kills a node asks for less. A shorter one
# turns a machine that stalls for a while into a node declared DOWN under a running job,
# which Slurm requeues and then drains the node for its duplicate job id).
set -euo pipefail

die() { echo "cluster/up: $*" >&2; exit 1; }
usage="usage: $0 [--nodes N] [--cpus C] [--gpus G] [--mem MB] STATE_DIR"
nodes=${CS_SLURM_NODES:-1}
cpus=${CS_SLURM_CPUS:-8}
gpus=1
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
statearg=
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=${2:-}; shift 2 || die "$usage" ;;
    --cpus) cpus=${2:-}; shift 2 || die "$usage" ;;
    --gpus) gpus=${2:-}; shift 2 || die "$usage" ;;
    --mem) mem_mb=${2:-}; shift 2 || die "$usage" ;;
    -h | --help) echo "$usage"; exit 0 ;;
    -*) die "unknown option '$1' ($usage)" ;;
    *) [ -z "$statearg" ] || die "$usage"; statearg=$1; shift ;;
  esac
done
[ -n "$statearg" ] || die "$usage"
isnum() { [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || die "$1: '$2' (allowed: an integer from $3 to $4)"; }
isnum --nodes "$nodes" 1 32
isnum --cpus "$cpus" 1 1024
isnum --gpus "$gpus" 0 16
isnum --mem "$mem_mb" 100 100000000
[ "$(id -u)" -eq 0 ] || die "must run as root (it creates namespaces and starts munged, mariadbd and the Slurm daemons)"
accounting=${CS_SLURM_ACCOUNTING:-slurmdbd}
case "$accounting" in slurmdbd | none) ;; *) die "CS_SLURM_ACCOUNTING: '$accounting' (allowed: slurmdbd, none)" ;; esac
need="munged mungekey slurmctld slurmd sinfo scontrol ip unshare"
[ "$accounting" = slurmdbd ] && need="$need mariadb-install-db mariadbd mariadb slurmdbd sacctmgr"
for exe in $need; do
  command -v "$exe" >/dev/null 2>&1 || die "$exe not found: install the packages in scripts/apt-test.txt"
done

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$statearg"
state=$(cd "$statearg" && pwd)
chmod 700 "$state"
t0=$(date +%s.%N)

base=${CS_SLURM_PORT_BASE:-16817}
ctld_port=$base; slurmd_port=$((base + 1)); dbd_port=$((base + 2)); db_port=$((base + 3))
partition=${CS_SLURM_PARTITION:-debug}
cluster=${CS_SLURM_CLUSTER:-cstest}
ctlhost=$(hostname -s)
marker="# ciphersweep test cluster: $state"

# A state dir from an earlier run is stopped and cleared first.
if [ -e "$state/pids" ] || [ -e "$state/env" ] || [ -e "$state/net" ]; then
  "$here/down.sh" "$state" >&2 || die "could not stop the old cluster in $state"
  rm -rf "${state:?}"/{munge,db,dbrun,dbtmp,ctld,spool,log,run,etc,node,pids,env,net}
fi
mkdir -p "$state"/{munge,db,dbrun,dbtmp,ctld,spool,log,run,etc}
chmod 711 "$state/munge"
: > "$state/pids"   # "name pid" lines, in start order; down.sh stops them in reverse
: > "$state/net"    # "netns NAME" / "link NAME" lines: what down.sh removes

# ---------------------------------------------------------------- names and addresses
# Link and namespace names carry a tag derived from the state dir, so two clusters (or a
# stale one) never share one.
tag=$(printf '%s' "$state" | sha1sum | cut -c1-4)
bridge="cs${tag}br"
ctlns="cs${tag}-ctl"
pick_subnet() { # a 10.A.B.0/24 that no address or route of this machine touches
  local h a b i used
  h=$(printf '%s' "$state" | sha1sum | cut -c5-8)
  used=$( { ip -4 -o addr show; ip -4 route show table all; } 2>/dev/null)
  for ((i = 0; i < 256; i++)); do
    a=$(( (0x${h:0:2} + i) % 200 + 40 )); b=$(( (0x${h:2:2} + 7 * i) % 256 ))
    if ! grep -qE "(^|[^0-9])10\.$a\.$b\." <<<"$used"; then echo "10.$a.$b"; return 0; fi
  done
  die "no free 10.x.y.0/24 subnet found"
}
net=$(pick_subnet)
host_ip=$net.1
ctl_ip=$net.2
node_name() { echo "node$1"; }
node_ip() { echo "$net.$((10 + $1))"; }
node_ns() { echo "cs${tag}-n$1"; }
# Slurm puts Unix sockets in the spool directories (at most 108 bytes a path): they are
# reached through a short link to STATE_DIR, /tmp/cs-TAG.
short=/tmp/cs-$tag
if [ -L "$short" ] && [ "$(readlink "$short")" != "$state" ] && [ -e "$short" ]; then
  die "$short already links to $(readlink "$short") (another test cluster?)"
fi
ln -sfn "$state" "$short" && echo "symlink $short" >> "$state/net"
node_list="node[1-$nodes]"
[ "$nodes" -eq 1 ] && node_list=node1

"$here/write-env.sh" "$state/env" \
  "CS_STATE=$state" \
  "CS_NODE=node1" \
  "CS_NODES=$(for i in $(seq 1 "$nodes"); do printf '%s ' "$(node_name "$i")"; done | sed 's/ $//')" \
  "CS_NODE_LIST=$node_list" \
  "CS_NODE_COUNT=$nodes" \
  "CS_PARTITION=$partition" \
  "CS_CLUSTER=$cluster" \
  "CS_CPUS=$cpus" \
  "CS_GPUS=$gpus" \
  "CS_ACCOUNTING=$accounting" \
  "CS_SUBNET=$net.0/24" \
  "CS_NETNS_PREFIX=cs${tag}" \
  "CS_MUNGE_SOCKET=$state/munge/munge.socket" \
  "CS_DB_SOCKET=$state/dbrun/mysqld.sock" \
  "SLURM_CONF=$state/etc/slurm.conf"
export SLURM_CONF=$state/etc/slurm.conf

# If anything below fails, stop what was started and remove what was made.
trap 'exit 1' INT TERM HUP
trap 'rc=$?; if [ $rc -ne 0 ]; then echo "cluster/up: failed; logs in $state/log; tearing down" >&2; "$here/down.sh" "$state" >&2 || true; fi' EXIT

record_pid() { # name pidfile timeout_s
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    if [ -s "$2" ] && kill -0 "$(cat "$2")" 2>/dev/null; then
      echo "$1 $(cat "$2")" >> "$state/pids"
      return 0
    fi
    sleep 0.1
  done
  die "$1 did not write its PID file $2 (see $state/log)"
}

wait_for() { # description timeout_s command...
  local what=$1 limit=$2 deadline
  shift 2
  deadline=$((SECONDS + limit))
  while [ $SECONDS -lt $deadline ]; do
    if timeout 10 "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "timed out after ${limit}s waiting for $what (see $state/log)"
}

# ---------------------------------------------------------------- network
# One bridge on this machine (address .1, used by the clients run here), one veth pair
# per namespace: ctl (.2) and node i (.10+i). Inside a namespace its end is called eth0.
ip link add "$bridge" type bridge && echo "link $bridge" >> "$state/net"
ip addr add "$host_ip/24" dev "$bridge"
ip link set "$bridge" up
attach_ns() { # netns host-side-link address
  local ns=$1 hl=$2 addr=$3
  ip netns add "$ns" && echo "netns $ns" >> "$state/net"
  ip link add "$hl" type veth peer name "${hl}p"
  echo "link $hl" >> "$state/net"
  ip link set "$hl" master "$bridge" up
  ip link set "${hl}p" netns "$ns"
  ip -n "$ns" link set "${hl}p" name eth0
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
}
attach_ns "$ctlns" "cs${tag}c" "$ctl_ip"
for i in $(seq 1 "$nodes"); do attach_ns "$(node_ns "$i")" "cs${tag}h$i" "$(node_ip "$i")"; done

{
  echo "127.0.0.1 localhost"
  echo "$ctl_ip $ctlhost"
  for i in $(seq 1 "$nodes"); do echo "$(node_ip "$i") $(node_name "$i")"; done
} > "$state/etc/hosts"

# The cluster's services (munged, MariaDB, slurmdbd, slurmctld) run at a higher priority
# than the jobs and the tests beside them, as on a cluster whose controller has a machine
# of its own: on a loaded 2-core test machine sacct and sbatch must answer in seconds.
# slurmd is not among them: the jobs it starts would inherit its priority.
svc_nice=(nice -n -5)

# ---------------------------------------------------------------- munge (private key)
mungekey --create --keyfile="$state/munge/munge.key" --bits=1024 >/dev/null
chmod 400 "$state/munge/munge.key"
"${svc_nice[@]}" munged --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
  --pid-file="$state/run/munged.pid" --log-file="$state/log/munged.log" \
  --seed-file="$state/munge/munged.seed" 2>>"$state/log/munged.log"
record_pid munged "$state/run/munged.pid" 10
wait_for munge 10 sh -c "munge -S '$state/munge/munge.socket' -n | unmunge -S '$state/munge/munge.socket'"

# ---------------------------------------------------------------- MariaDB (private datadir)
in_ctl() { ip netns exec "$ctlns" "$@"; }
if [ "$accounting" = slurmdbd ]; then
# A temporary directory of its own: MariaDB removes the "#sql*" files it finds in its
# tmpdir when it starts, so with the shared /tmp one cluster's MariaDB starting
# deleted the temporary tables another cluster's mariadb-install-db was writing.
mariadb-install-db --no-defaults --datadir="$state/db" --user=root --auth-root-authentication-method=socket \
  --skip-test-db --skip-name-resolve --tmpdir="$state/dbtmp" >"$state/log/mariadb-install.log" 2>&1 \
  || die "mariadb-install-db failed (see $state/log/mariadb-install.log)"
in_ctl "${svc_nice[@]}" mariadbd --no-defaults --user=root --datadir="$state/db" --tmpdir="$state/dbtmp" --socket="$state/dbrun/mysqld.sock" \
  --port="$db_port" --bind-address=127.0.0.1 --skip-name-resolve \
  --pid-file="$state/run/mariadbd.pid" --log-error="$state/log/mariadbd.log" \
  --innodb-buffer-pool-size=64M --innodb-log-file-size=64M --innodb-lock-wait-timeout=900 \
  --innodb-flush-log-at-trx-commit=0 --skip-log-bin </dev/null >/dev/null 2>&1 &
record_pid mariadbd "$state/run/mariadbd.pid" 30
wait_for MariaDB 30 mariadb-admin --no-defaults --socket="$state/dbrun/mysqld.sock" -u root ping
dbpass=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
mariadb --no-defaults --socket="$state/dbrun/mysqld.sock" -u root <<EOF
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$dbpass';
CREATE USER 'slurm'@'localhost' IDENTIFIED BY '$dbpass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
EOF
fi

# ---------------------------------------------------------------- Slurm configuration
gres_node=""
[ "$gpus" -gt 0 ] && gres_node="Gres=gpu:$gpus"
cat > "$state/etc/slurm.conf" <<EOF
$marker
# Private cluster: $nodes node(s) declaring $cpus CPUs each (config_overrides lets them
# declare more than the machine has), $gpus fake GPU(s) each, accounting: $accounting.
ClusterName=$cluster
SlurmctldHost=$ctlhost($ctl_ip)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$short/spool/%n
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd-%n.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
GresTypes=gpu
EnforcePartLimits=ALL
ReturnToService=2
JobRequeue=1
# a requeued job's log keeps the output of its earlier runs (the one that died with its
# node), as sbatch --open-mode=append would
JobFileAppend=1
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
InactiveLimit=0
KillWait=5
MinJobAge=${CS_SLURM_MINJOBAGE:-600}
SlurmctldTimeout=30
SlurmdTimeout=${CS_SLURM_SLURMDTIMEOUT:-300}
MessageTimeout=10
$(if [ "$accounting" = slurmdbd ]; then cat <<EOT
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$ctl_ip
AccountingStoragePort=$dbd_port
AccountingStoragePass=$state/munge/munge.socket
AccountingStorageTRES=gres/gpu
EOT
else echo "AccountingStorageType=accounting_storage/none"; fi)
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
$(for i in $(seq 1 "$nodes"); do
  echo "NodeName=$(node_name "$i") NodeAddr=$(node_ip "$i") CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem_mb $gres_node State=UNKNOWN"
done)
PartitionName=$partition Nodes=$node_list Default=YES MaxTime=INFINITE State=UP
EOF

[ "$accounting" = slurmdbd ] && cat > "$state/etc/slurmdbd.conf" <<EOF
$marker
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
DbdHost=localhost
DbdAddr=$ctl_ip
DbdPort=$dbd_port
SlurmUser=root
PidFile=$state/run/slurmdbd.pid
LogFile=$state/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=$dbpass
StorageLoc=slurm_acct_db
EOF
[ "$accounting" = slurmdbd ] && chmod 600 "$state/etc/slurmdbd.conf"

cat > "$state/etc/cgroup.conf" <<EOF
$marker
# No cgroup plugin is used (proctrack/linuxproc, task/none); v1 keeps slurmd from
# failing where no cgroup v2 filesystem is mounted.
CgroupPlugin=cgroup/v1
EOF

{
  echo "$marker"
  echo "# Fake GPUs: let GPU-shaped jobs be scheduled on a machine without one."
  echo "AutoDetect=off"
  if [ "$gpus" -eq 1 ]; then echo "Name=gpu File=/dev/null"
  elif [ "$gpus" -gt 1 ]; then echo "Name=gpu Count=$gpus"; fi
} > "$state/etc/gres.conf"
: > "$state/etc/plugstack.conf"

# ---------------------------------------------------------------- slurmdbd, slurmctld, slurmd
if [ "$accounting" = slurmdbd ]; then
  in_ctl "${svc_nice[@]}" slurmdbd 2>>"$state/log/slurmdbd.log"
  record_pid slurmdbd "$state/run/slurmdbd.pid" 30
  wait_for slurmdbd 60 sacctmgr -n show cluster
fi

in_ctl "${svc_nice[@]}" slurmctld -f "$SLURM_CONF" 2>>"$state/log/slurmctld.log"
record_pid slurmctld "$state/run/slurmctld.pid" 30
wait_for slurmctld 30 scontrol ping

# A node: its namespaces, its /etc/slurm (the cluster's files, hard-linked, plus an
# mpi.conf of its own: the nodes share /tmp, where the PMIx plugin would otherwise put
# per-step directories whose names clash between nodes), /etc/hosts, hostname, its own
# /dev/shm (Open MPI's shared-memory segments are named after the host and a hash of
# the Slurm job and step, all of which repeat in every test cluster: two clusters on one
# machine running job N on their node1 at once would map each other's segments and
# crash in the shared-memory transport), slurmd.
for i in $(seq 1 "$nodes"); do
  name=$(node_name "$i")
  mkdir -p "$state/spool/$name/pmix" "$state/node/$name"
  for f in "$state"/etc/*; do ln -f "$f" "$state/node/$name/"; done
  printf '%s\nPMIxCliTmpDirBase=%s\n' "$marker" "$short/spool/$name/pmix" > "$state/node/$name/mpi.conf"
  ip netns exec "$(node_ns "$i")" unshare --uts --mount --propagation private \
    sh -c 'mount --bind "$1/node/$2" /etc/slurm && mount --bind "$1/etc/hosts" /etc/hosts &&
           mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm &&
           hostname "$2" && exec slurmd -f /etc/slurm/slurm.conf -N "$2"' \
    node "$state" "$name" 2>>"$state/log/slurmd-$name.log"
done
for i in $(seq 1 "$nodes"); do
  record_pid "slurmd-$(node_name "$i")" "$state/run/slurmd-$(node_name "$i").pid" 30
done
wait_for "$nodes node(s) to become idle" 60 \
  bash -c "[ \"\$(sinfo -h -N -t idle -o %N | sort -u | wc -l)\" -eq $nodes ]"
[ "$accounting" = none ] || wait_for "cluster $cluster in accounting" 60 bash -c "sacctmgr -n -P show cluster format=cluster | grep -qx '$cluster'"

trap - EXIT
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
echo "CS_BRINGUP_SECONDS=$secs" >> "$state/env"
echo "cluster up in ${secs} s: $nodes node(s) $node_list ($cpus CPUs, gpu:$gpus each) on $net.0/24, partition $partition, accounting $accounting, SLURM_CONF=$SLURM_CONF"
