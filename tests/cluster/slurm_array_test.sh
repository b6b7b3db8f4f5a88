#!/usr/bin/env bash
# A real cluster run (docs/cluster.md): starts a one-node Slurm of its own (munged, slurmctld and
# slurmd on this machine, everything under a temporary directory, stopped again on exit), submits
# examples/slurm/audit-array.sbatch as a 4-task job array over the bundled SummEval sample and
# examples/slurm/audit-finish.sbatch as the dependent final step, exactly as the docs say, and
# checks that the final report equals an unsharded run's (apart from `seconds` and the cache
# counters) and that the final step recomputed nothing.
#
# Usage: slurm_array_test.sh PROBITY_BINARY SOURCE_DIR
# Exit 77 (ctest: skipped) only when Slurm is not installed (scripts/setup.sh installs it); a
# daemon that does not come up, a job that fails or a hang (every wait has a deadline) fails.
# PROBITY_KEEP_SLURM_TMP=1 keeps the temporary directory (configuration, logs, job outputs).
set -euo pipefail
probity=$(realpath "$1")
src=$(realpath "$2")
PATH="$(dirname "$probity"):$PATH:/usr/sbin:/sbin"
export PATH

if ! command -v slurmctld >/dev/null; then
  echo "SKIPPED: Slurm is not installed (slurmctld not found; scripts/setup.sh installs slurm-wlm)"
  exit 77
fi
for tool in slurmd sbatch squeue scontrol scancel sinfo munged mungekey munge unmunge python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found next to slurmctld"; exit 1; }
done

# The commands below must talk to this cluster only, whatever Slurm job the caller runs in.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^SLURM_' || true)

tmp=$(mktemp -d /tmp/probity-slurm.XXXXXX)  # not $TMPDIR: a socket's path has at most 107 bytes
chmod 755 "$tmp"  # munged wants the directories of its socket searchable
pids=()           # the daemons this script started, stopped in reverse order
names=()          # their names
jobs_submitted=()
started=$SECONDS

log_tails() {
  local f
  for f in "$tmp"/munged "$tmp"/slurmctld "$tmp"/slurmd "$tmp"/work/slurm-*.out "$tmp"/plain.log; do
    # A daemon's own log, or what it printed before it had one.
    if [ -e "$f.stderr" ]; then [ -s "$f.log" ] && f=$f.log || f=$f.stderr; fi
    [ -s "$f" ] || continue
    echo "----- $f (last 40 lines)"
    tail -n 40 "$f"
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ ${#jobs_submitted[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    timeout 20 scancel "${jobs_submitted[@]}" 2>/dev/null || true
    # Let slurmd's step daemons end the jobs' processes before slurmd goes.
    for _ in $(seq 20); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 1
    done
  fi
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ]; then
    echo "FAIL (exit $rc) after $((SECONDS - started)) s"
    log_tails
  fi
  if [ "${PROBITY_KEEP_SLURM_TMP:-0}" = 1 ]; then
    echo "kept $tmp"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  exit 1
}

# start NAME COMMAND...: runs a daemon in the foreground, in the background of this script.
start() {
  local name=$1
  shift
  "$@" </dev/null >"$tmp/$name.stderr" 2>&1 &
  pids+=($!)
  names+=("$name")
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s until it succeeds; fails
# at the deadline or as soon as a daemon has exited.
wait_for() {
  local limit=$1 what=$2 i
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    for i in "${!pids[@]}"; do
      kill -0 "${pids[i]}" 2>/dev/null || fail "${names[i]} exited (waiting for $what)"
    done
    [ "$SECONDS" -lt "$deadline" ] || fail "$what not within $limit s"
    sleep 0.5
  done
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Below the kernel's ephemeral range: a port inside it can be taken between this check and
# slurmd's bind by any outgoing connection (a test running in parallel), which no check sees in
# advance (a CI run failed so: "Unable to bind listen port ... Address already in use").
read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || ephemeral_low=32768
[ "$ephemeral_low" -gt 12000 ] || ephemeral_low=32768
ctld_port=
for _ in $(seq 50); do
  p=$((10000 + RANDOM % (ephemeral_low - 10002)))
  if port_free "$p" && port_free $((p + 1)); then
    ctld_port=$p
    break
  fi
done
[ -n "$ctld_port" ] || fail "no two free ports found"

# munge: a key of this run only and a private munged on its own socket.
mkdir -m 700 "$tmp/munge"
timeout 30 mungekey --create --keyfile="$tmp/munge/munge.key"
start munged munged --foreground --force --socket="$tmp/munge/socket" \
  --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
  --seed-file="$tmp/munge/seed" --log-file="$tmp/munged.log"
munge_ok() { munge -n -S "$tmp/munge/socket" | unmunge -S "$tmp/munge/socket"; }
wait_for 30 "munged answering on $tmp/munge/socket" munge_ok

# slurm.conf: this host under its short name, reached at 127.0.0.1 (no DNS needed); no cgroup
# plugins (a container may have none); no accounting database.
host=$(hostname -s)
user=$(id -un)
# slurmd -C prints the node's CPUs, sockets, cores, threads and memory as slurmd will see them.
node_hw=$(timeout 30 slurmd -C 2>/dev/null | grep -m1 '^NodeName=' | sed 's/^NodeName=[^ ]*//')
[ -n "$node_hw" ] || node_hw=" CPUs=$(nproc)"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/work"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=probity-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1$node_hw State=UNKNOWN
PartitionName=probity Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
start slurmctld slurmctld -D -i -f "$SLURM_CONF"
start slurmd slurmd -D -N "$host" -f "$SLURM_CONF"
node_idle() { [ "$(timeout 5 sinfo -h -n "$host" -o %T)" = idle ]; }
wait_for 60 "the node idle in sinfo (slurmctld and slurmd up)" node_idle
echo "slurm up after $((SECONDS - started)) s: node $host$node_hw, port $ctld_port"

# The documented submission (docs/cluster.md), with 4 shards, one CPU per task and the bundled
# sample as the shared dataset; sbatch's options override the scripts' #SBATCH lines.
data=$src/data/summeval/summeval_sample20.jsonl
export PROBITY_DATA=$data PROBITY_RUN=$tmp/run
unset PROBITY_SHARDS
cd "$tmp/work"
jid=$(timeout 30 sbatch --parsable --array=0-3 --cpus-per-task=1 --time=00:10:00 \
  "$src/examples/slurm/audit-array.sbatch")
jid=${jid%%;*}
jobs_submitted+=("$jid")
fin=$(timeout 30 sbatch --parsable --cpus-per-task=1 --time=00:10:00 \
  --dependency="afterok:$jid" "$src/examples/slurm/audit-finish.sbatch")
fin=${fin%%;*}
jobs_submitted+=("$fin")
echo "submitted array job $jid (4 tasks) and final job $fin"

# Meanwhile the unsharded run, the reference.
timeout 120 "$probity" audit --data "$data" --metric bleu --metric gem --metric stmt-tv --seed 0 \
  --threads 1 --out "$tmp/plain" >"$tmp/plain.log" 2>&1 || fail "the unsharded audit failed"

# Both jobs must end; a failed array task cancels the final job (--kill-on-invalid-dep).
job_state() { timeout 10 scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sort -u; }
finished() {
  local queued
  queued=$(timeout 5 squeue -h -j "$jid,$fin" -o %i) && [ -z "$queued" ]
}
wait_for 240 "the array and the final job finished" finished
for j in "$jid" "$fin"; do
  state=$(job_state "$j")
  [ "$state" = "JobState=COMPLETED" ] || fail "job $j ended as: ${state//$'\n'/ }"
done
echo "jobs completed after $((SECONDS - started)) s"

for i in 0 1 2 3; do
  grep -q "^shard $i/4: " "slurm-${jid}_$i.out" || fail "array task $i did not audit shard $i/4"
  [ -f "$tmp/run/shard-$i/cache.sqlite" ] || fail "shard $i wrote no cache"
done
[ -f "$tmp/run/final/report.json" ] || fail "the final job wrote no report"
python3 - "$tmp/run/final/report.json" "$tmp/plain/report.json" <<'EOF'
import json, sys
final, plain = (json.load(open(path)) for path in sys.argv[1:3])
if final["cache_misses"] != 0:
    sys.exit(f"FAIL: the final step recomputed {final['cache_misses']} item(s)")
for report in (final, plain):
    for volatile in ("seconds", "cache_hits", "cache_misses"):
        report.pop(volatile)
if final != plain:
    sys.exit("FAIL: the report of the Slurm run differs from the unsharded run's")
EOF
echo "slurm job array: ok ($((SECONDS - started)) s)"
