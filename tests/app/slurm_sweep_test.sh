#!/bin/bash
# scenarios/slurm/sweep.sbatch on a real, private, single-node Slurm: this script starts munged,
# slurmctld and slurmd with its own key, slurm.conf, state directories and localhost ports, submits a
# sweep as a 3-task job array plus a dependent merge job (sbatch --wait), checks the merged results equal
# a local run of the same sweep row for row, and stops everything it started.
# Exit 77 (CTest: skipped) only where Slurm cannot run here: not root, packages missing, daemons not up.
# Usage: slurm_sweep_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build_dir=$(realpath "$1")
source_dir=$(realpath "$2")
gpuscale="$build_dir/gpuscale"
sweep="$source_dir/tests/data/sweeps/small.yaml"

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

[[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs; run the suite as root (./run test in CI does)"
for program in munged munge slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$program" >/dev/null || skip "'$program' not installed (apt-get install slurmctld slurmd munge slurm-client)"
done
[[ -x "$gpuscale" ]] || fail "no gpuscale binary in $build_dir"

work=$(mktemp -d /tmp/gpuscale-slurm.XXXXXX)
chmod 755 "$work" # munged requires its socket directory to be reachable by all
mkdir -p "$work"/{munge,state,spool,log,run}
chmod 755 "$work/munge"
export SLURM_CONF="$work/slurm.conf"

stop() {
  # Only what this script started, by the pids they wrote.
  scontrol shutdown >/dev/null 2>&1
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
    [[ -f "$pidfile" ]] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 1
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
    [[ -f "$pidfile" ]] && kill -9 "$(cat "$pidfile")" 2>/dev/null
  done
  rm -rf "$work"
}
trap stop EXIT

dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --socket="$work/munge/munge.socket" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" ||
  skip "munged did not start: $(tail -2 "$work/munge/munged.log" 2>/dev/null)"

read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
host=$(hostname -s)
cpus=$(nproc)
cat >"$SLURM_CONF" <<CONF
ClusterName=gpuscaletest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=gpuscaletest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -3 "$work/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start: $(tail -3 "$work/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  sinfo --noheader -o %t 2>/dev/null | grep -qx idle && break
  sleep 0.5
done
sinfo --noheader -o %t 2>/dev/null | grep -qx idle ||
  skip "the Slurm node did not become idle: $(sinfo 2>&1 | tail -2); $(tail -3 "$work/log/slurmd.log" 2>/dev/null)"
echo "slurm up: $(sinfo --noheader -o '%P %D %t %C')"

# The same sweep, locally and as 3 Slurm shards + merge (from the work directory: jobs run in it).
"$gpuscale" sweep "$sweep" -o "$work/run/local.h5" -j 2 >/dev/null || fail "local sweep failed"
cd "$work/run"
GPUSCALE="$gpuscale" GPUSCALE_SBATCH_WAIT=1 timeout 300 \
  "$source_dir/scenarios/slurm/sweep.sbatch" submit "$sweep" "$work/run/slurm" 3 --cpus-per-task=1
status=$?
for log in "$work"/run/slurm/logs/*.out; do
  echo "--- $(basename "$log")"
  cat "$log"
done
((status == 0)) || fail "sweep.sbatch submit --wait returned $status"
[[ -f "$work/run/slurm/results.h5" ]] || fail "no merged results"

/usr/bin/python3 - "$work/run/local.h5" "$work/run/slurm/results.h5" <<'PY' || fail "merged results differ from the local sweep"
import sys
import h5py
import numpy as np

def rows(path):
    table = h5py.File(path, "r")["runs"][()]
    names = [n for n in table.dtype.names if n != "run_id"]
    return sorted((tuple(r[n].item() for n in names) for r in table), key=lambda r: r[names.index("sweep_point")]), names

local, names = rows(sys.argv[1])
merged, _ = rows(sys.argv[2])
print(f"local {len(local)} rows, merged {len(merged)} rows, {len(names)} columns compared")
if len(local) != len(merged) or len(local) == 0:
    sys.exit(1)
def same(x, y):
    return x == y or (isinstance(x, float) and isinstance(y, float) and np.isnan(x) and np.isnan(y))

for a, b in zip(local, merged):
    if not all(same(x, y) for x, y in zip(a, b)):
        print("differs:", [(n, x, y) for n, x, y in zip(names, a, b) if not same(x, y)])
        sys.exit(1)
PY
echo "PASSED: Slurm shards merged equal the local sweep"
