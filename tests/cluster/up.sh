#!/usr/bin/env bash
# Brings up a private single-node Slurm cluster (munge, MariaDB, slurmdbd, slurmctld,
# slurmd) on this machine, for tests and for trying the Slurm profile by hand.
#
#   tests/cluster/up.sh STATE_DIR      # prints "cluster up in N s"; STATE_DIR/env describes it
#   tests/cluster/down.sh STATE_DIR    # stops every daemon by PID, restores /etc/slurm
#
# Needs root on Debian 12 with the packages of scripts/apt-test.txt. Everything the
# daemons write lives under STATE_DIR (munge key and socket, MariaDB datadir on
# 127.0.0.1, Slurm state, logs, PID files). The only files written outside it are
# /etc/slurm/{slurm,slurmdbd,cgroup,gres}.conf: Slurm clients started inside job steps
# only find their configuration there. Files that existed are backed up into
# STATE_DIR/etc-backup and put back by down.sh.
#
# Knobs (environment): CS_SLURM_PORT_BASE (default 16817: slurmctld, +1 slurmd,
# +2 slurmdbd, +3 MariaDB), CS_SLURM_CPUS (default 32: CPUs the node declares,
# whatever the real core count), CS_SLURM_PARTITION (default "debug"),
# CS_SLURM_CLUSTER (default "cstest"), CS_SLURM_ACCOUNTING (default "slurmdbd"; "none":
# no MariaDB and no slurmdbd, as on clusters without accounting), CS_SLURM_MINJOBAGE
# (default 600 s: how long slurmctld keeps finished jobs, i.e. what squeue can see).
set -euo pipefail

die() { echo "cluster/up: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: $0 STATE_DIR"
[ "$(id -u)" -eq 0 ] || die "must run as root (it starts munged, mariadbd and the Slurm daemons)"
accounting=${CS_SLURM_ACCOUNTING:-slurmdbd}
case "$accounting" in slurmdbd | none) ;; *) die "CS_SLURM_ACCOUNTING: '$accounting' (allowed: slurmdbd, none)" ;; esac
need="munged mungekey slurmctld slurmd sinfo scontrol"
[ "$accounting" = slurmdbd ] && need="$need mariadb-install-db mariadbd mariadb slurmdbd sacctmgr"
for exe in $need; do
  command -v "$exe" >/dev/null 2>&1 || die "$exe not found: install the packages in scripts/apt-test.txt"
done

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
state=$(cd "$1" && pwd)
chmod 700 "$state"
t0=$(date +%s.%N)

base=${CS_SLURM_PORT_BASE:-16817}
ctld_port=$base; slurmd_port=$((base + 1)); dbd_port=$((base + 2)); db_port=$((base + 3))
cpus=${CS_SLURM_CPUS:-32}
partition=${CS_SLURM_PARTITION:-debug}
cluster=${CS_SLURM_CLUSTER:-cstest}
node=$(hostname -s)
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
marker="# ciphersweep test cluster: $state"

# Only one private cluster per machine (the /etc/slurm files are global).
if [ -f /etc/slurm/slurm.conf ] && grep -q '^# ciphersweep test cluster: ' /etc/slurm/slurm.conf; then
  other=$(sed -n 's/^# ciphersweep test cluster: //p' /etc/slurm/slurm.conf | head -1)
  alive=0
  for p in "$other"/run/*.pid; do
    [ -f "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null && alive=1
  done
  if [ "$alive" = 1 ]; then
    die "another test cluster is running (state $other); stop it with tests/cluster/down.sh $other"
  fi
  echo "cluster/up: cleaning up a stale test cluster ($other)" >&2
  "$here/down.sh" "$other" >&2 || true
fi

# A state dir from an earlier run is stopped and cleared first.
if [ -e "$state/pids" ] || [ -e "$state/env" ]; then
  "$here/down.sh" "$state" >&2 || die "could not stop the old cluster in $state"
  rm -rf "${state:?}"/{munge,db,dbrun,ctld,spool,log,run,etc,etc-backup,pids,env}
fi
mkdir -p "$state"/{munge,db,dbrun,ctld,spool,log,run,etc,etc-backup}
chmod 711 "$state/munge"
: > "$state/pids"   # "name pid" lines, in start order; down.sh stops them in reverse

cat > "$state/env" <<EOF
# written by tests/cluster/up.sh
CS_STATE=$state
CS_NODE=$node
CS_PARTITION=$partition
CS_CLUSTER=$cluster
CS_CPUS=$cpus
CS_ACCOUNTING=$accounting
CS_MUNGE_SOCKET=$state/munge/munge.socket
CS_DB_SOCKET=$state/dbrun/mysqld.sock
SLURM_CONF=/etc/slurm/slurm.conf
EOF

# If anything below fails, stop what was started and put /etc/slurm back.
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

# ---------------------------------------------------------------- munge (private key)
mungekey --create --keyfile="$state/munge/munge.key" --bits=1024 >/dev/null
chmod 400 "$state/munge/munge.key"
munged --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
  --pid-file="$state/run/munged.pid" --log-file="$state/log/munged.log" \
  --seed-file="$state/munge/munged.seed" 2>>"$state/log/munged.log"
record_pid munged "$state/run/munged.pid" 10
wait_for munge 10 sh -c "munge -S '$state/munge/munge.socket' -n | unmunge -S '$state/munge/munge.socket'"

# ---------------------------------------------------------------- MariaDB (private datadir)
if [ "$accounting" = slurmdbd ]; then
mariadb-install-db --no-defaults --datadir="$state/db" --user=root --auth-root-authentication-method=socket \
  --skip-test-db --skip-name-resolve >"$state/log/mariadb-install.log" 2>&1 \
  || die "mariadb-install-db failed (see $state/log/mariadb-install.log)"
mariadbd --no-defaults --user=root --datadir="$state/db" --socket="$state/dbrun/mysqld.sock" \
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
cat > "$state/etc/slurm.conf" <<EOF
$marker
# Private single-node cluster: one node declaring $cpus CPUs (config_overrides lets it
# declare more than it has), one fake GPU, accounting through slurmdbd.
ClusterName=$cluster
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
GresTypes=gpu
EnforcePartLimits=ALL
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
InactiveLimit=0
KillWait=5
MinJobAge=${CS_SLURM_MINJOBAGE:-600}
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=20
$(if [ "$accounting" = slurmdbd ]; then cat <<EOT
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$state/munge/munge.socket
AccountingStorageTRES=gres/gpu
EOT
else echo "AccountingStorageType=accounting_storage/none"; fi)
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem_mb Gres=gpu:1 State=UNKNOWN
PartitionName=$partition Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

[ "$accounting" = slurmdbd ] && cat > "$state/etc/slurmdbd.conf" <<EOF
$marker
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
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

cat > "$state/etc/gres.conf" <<EOF
$marker
# A fake GPU: lets GPU-shaped jobs be scheduled on a machine without one.
AutoDetect=off
Name=gpu File=/dev/null
EOF

# Install into /etc/slurm, backing up what was there.
mkdir -p /etc/slurm
for f in slurm.conf cgroup.conf gres.conf $([ "$accounting" = slurmdbd ] && echo slurmdbd.conf); do
  if [ -e "/etc/slurm/$f" ]; then cp -a "/etc/slurm/$f" "$state/etc-backup/$f"; fi
  echo "$f" >> "$state/etc-installed"
  cp -a "$state/etc/$f" "/etc/slurm/$f"
done
export SLURM_CONF=/etc/slurm/slurm.conf

# ---------------------------------------------------------------- slurmdbd, slurmctld, slurmd
if [ "$accounting" = slurmdbd ]; then
  slurmdbd 2>>"$state/log/slurmdbd.log"
  record_pid slurmdbd "$state/run/slurmdbd.pid" 30
  wait_for slurmdbd 60 sacctmgr -n show cluster
fi

slurmctld -f /etc/slurm/slurm.conf 2>>"$state/log/slurmctld.log"
record_pid slurmctld "$state/run/slurmctld.pid" 30
wait_for slurmctld 30 scontrol ping

slurmd -f /etc/slurm/slurm.conf 2>>"$state/log/slurmd.log"
record_pid slurmd "$state/run/slurmd.pid" 30
wait_for "node $node to become idle" 60 bash -c "sinfo -h -n '$node' -o %T | grep -qx idle"
[ "$accounting" = none ] || wait_for "cluster $cluster in accounting" 60 bash -c "sacctmgr -n -P show cluster format=cluster | grep -qx '$cluster'"

trap - EXIT
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
echo "CS_BRINGUP_SECONDS=$secs" >> "$state/env"
echo "cluster up in ${secs} s: node $node ($cpus CPUs, gpu:1), partition $partition, accounting $accounting, state $state"
