#!/usr/bin/env bash
# Start a real Slurm (Debian's slurmctld, slurmd, munge) on this host for the
# tests: everything under $BASE, every daemon on 127.0.0.1, one slurmd per
# NodeName (MULTIPLE_SLURMD), no cgroups, no systemd. Pair with slurm-down.sh.
#
#   BASE=/tmp/x NNODES=3 GPUS=8 tests/slurm/slurm-up.sh && export SLURM_CONF=/tmp/x/etc/slurm.conf
#
# Knobs (environment):
#   BASE            working directory (required)
#   NNODES          NodeName entries / slurmd daemons (default 1)
#   GPUS            fake gpu GRES per node, 0 = none (default 0)
#   CTLD_PORT       slurmctld port; slurmd ports follow it.  Unset or "auto"
#                   (the default): a free block of NNODES+1 ports claimed
#                   through ports.sh, so that test scripts run side by side;
#                   the block is in $BASE/run/ports and slurm-down.sh drops it
#   CMAX_PORT_OWNER pid the auto block is claimed for (default: the caller,
#                   $PPID; the claim outlives this script as the daemons do)
#   REAL_MEMORY     RealMemory of every node in MiB (default 1000)
#   HEALTH_PROGRAM  HealthCheckProgram ("" = none; default: a marker-file script)
#   HC_INTERVAL     HealthCheckInterval seconds (default 5)
#   PROLOG          Prolog program ("" = none, default)
#   TOPOLOGY        "" (default, no topology plugin), "tree:FILE" or "flat"
#   NODE_FEATURES   Features= for every node ("" = none)
#   RACKS           when set, node i gets Features=rack<(i-1)/RACKS> for topology tests
#   EXTRA_CONF      extra lines appended to slurm.conf
#   NODE_HOSTNAME   NodeHostname of every node (default: this host's short name;
#                   slurmd -N does not check it, so another name makes the nodes
#                   look like separate hosts to readers of the configuration)
#   SLURMD_TIMEOUT  SlurmdTimeout (default 30)
#   WAIT_S          seconds to wait for every node idle (default 60)
set -euo pipefail
: "${BASE:?set BASE}"
NNODES=${NNODES:-1}
GPUS=${GPUS:-0}
CTLD_PORT=${CTLD_PORT:-auto}
REAL_MEMORY=${REAL_MEMORY:-1000}
HC_INTERVAL=${HC_INTERVAL:-5}
HOST=$(hostname -s)
NCPU=$(nproc)

mkdir -p "$BASE"/{munge,munge-key,etc,state,spool,log,run,fakedev}
if [ "$CTLD_PORT" = auto ]; then
	. "$(dirname "$0")/ports.sh"
	owner=${CMAX_PORT_OWNER:-$PPID}
	CTLD_PORT=$(ports_claim $((NNODES + 1)) "$owner") ||
		{ echo "slurm-up: no free block of $((NNODES + 1)) ports in $CMAX_PORT_RANGE" >&2; exit 1; }
	echo "$CTLD_PORT $((NNODES + 1)) $owner" >"$BASE/run/ports"
fi
chmod 755 "$BASE/munge"      # munged insists on o+x for its socket dir
chmod 700 "$BASE/munge-key"

KEY=$BASE/munge-key/munge.key
SOCK=$BASE/munge/munge.socket.2
[ -s "$KEY" ] || mungekey --create --keyfile="$KEY" --bits=1024
chmod 600 "$KEY"
munged --socket="$SOCK" --key-file="$KEY" --log-file="$BASE/log/munged.log" \
	--pid-file="$BASE/run/munged.pid" --seed-file="$BASE/munge-key/munged.seed"
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null

# Default health program: drains its node while $BASE/hc-fail-<node> exists.
if [ -z "${HEALTH_PROGRAM+x}" ]; then
	HEALTH_PROGRAM=$BASE/etc/healthcheck.sh
	cat >"$HEALTH_PROGRAM" <<HC
#!/bin/sh
export SLURM_CONF=$BASE/etc/slurm.conf
for n in \$SLURMD_NODENAME all; do
	if [ -e $BASE/hc-fail-\$n ]; then
		scontrol update NodeName=\$SLURMD_NODENAME State=DRAIN Reason="healthcheck: marker"
		exit 1
	fi
done
exit 0
HC
	chmod 755 "$HEALTH_PROGRAM"
fi

CONF=$BASE/etc/slurm.conf
{
	echo "ClusterName=cmaxci"
	echo "SlurmctldHost=localhost(127.0.0.1)"
	echo "SlurmctldPort=$CTLD_PORT"
	echo "SlurmUser=root"
	echo "SlurmdUser=root"
	echo "AuthType=auth/munge"
	echo "CredType=cred/munge"
	echo "AuthInfo=socket=$SOCK"
	echo "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny"
	echo "StateSaveLocation=$BASE/state"
	echo "SlurmdSpoolDir=$BASE/spool/%n"
	echo "SlurmctldPidFile=$BASE/run/slurmctld.pid"
	echo "SlurmdPidFile=$BASE/run/slurmd-%n.pid"
	echo "SlurmctldLogFile=$BASE/log/slurmctld.log"
	echo "SlurmdLogFile=$BASE/log/slurmd-%n.log"
	echo "PlugStackConfig=$BASE/etc/plugstack.conf"
	echo "ProctrackType=proctrack/linuxproc"
	echo "TaskPlugin=task/none"
	echo "JobAcctGatherType=jobacct_gather/none"
	echo "AccountingStorageType=accounting_storage/none"
	echo "JobCompType=jobcomp/none"
	echo "MpiDefault=none"
	echo "MailProg=/bin/true"
	echo "SchedulerType=sched/backfill"
	echo "SelectType=select/cons_tres"
	echo "SelectTypeParameters=CR_Core"
	echo "SlurmdParameters=config_overrides"
	echo "ReturnToService=2"
	echo "SlurmctldTimeout=30"
	echo "SlurmdTimeout=${SLURMD_TIMEOUT:-30}"
	echo "InactiveLimit=0"
	echo "KillWait=5"
	echo "MinJobAge=60"
	if [ -n "$HEALTH_PROGRAM" ]; then
		echo "HealthCheckProgram=$HEALTH_PROGRAM"
		echo "HealthCheckInterval=$HC_INTERVAL"
		echo "HealthCheckNodeState=ANY"
	fi
	[ -n "${PROLOG:-}" ] && echo "Prolog=$PROLOG"
	[ "$GPUS" -gt 0 ] && echo "GresTypes=gpu"
	case ${TOPOLOGY:-} in
	tree:*) echo "TopologyPlugin=topology/tree"; echo "TopologyParam=TopoOptional" ;;
	flat) echo "TopologyPlugin=topology/none" ;;
	esac
	[ -n "${EXTRA_CONF:-}" ] && printf '%s\n' "$EXTRA_CONF"
} >"$CONF"
case ${TOPOLOGY:-} in tree:*) cp "${TOPOLOGY#tree:}" "$BASE/etc/topology.conf" ;; esac
: >"$BASE/etc/plugstack.conf"
: >"$BASE/etc/gres.conf"
NODES=""
for i in $(seq 1 "$NNODES"); do
	n=node$i
	G="" F=""
	if [ "$GPUS" -gt 0 ]; then
		G="Gres=gpu:fake:$GPUS"
		# slurmd only accepts character devices as GRES files: clones of /dev/null
		for g in $(seq 0 $((GPUS - 1))); do
			[ -c "$BASE/fakedev/$n-nvidia$g" ] || mknod "$BASE/fakedev/$n-nvidia$g" c 1 3
		done
		echo "NodeName=$n Name=gpu Type=fake File=$BASE/fakedev/$n-nvidia[0-$((GPUS - 1))]" >>"$BASE/etc/gres.conf"
	fi
	feats=${NODE_FEATURES:-}
	[ -n "${RACKS:-}" ] && feats=${feats:+$feats,}rack$(((i - 1) / RACKS))
	[ -n "$feats" ] && F="Features=$feats"
	echo "NodeName=$n NodeHostname=${NODE_HOSTNAME:-$HOST} NodeAddr=127.0.0.1 Port=$((CTLD_PORT + i)) CPUs=$NCPU RealMemory=$REAL_MEMORY $G $F State=UNKNOWN" >>"$CONF"
	NODES="$NODES $n"
	mkdir -p "$BASE/spool/$n"
done
echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$CONF"
export SLURM_CONF=$CONF

slurmctld -f "$CONF"
for n in $NODES; do
	slurmd -f "$CONF" -N "$n"
done

deadline=$(($(date +%s) + ${WAIT_S:-60}))
while :; do
	st=$(sinfo -h -N -o '%N %T' 2>/dev/null || true)
	[ "$(printf '%s\n' "$st" | awk '$2=="idle"' | wc -l)" -ge "$NNODES" ] && break
	if ! kill -0 "$(cat "$BASE/run/slurmctld.pid" 2>/dev/null || echo 0)" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
		echo "slurm-up: nodes not idle after ${WAIT_S:-60}s:" >&2
		printf '%s\n' "$st" >&2
		tail -n 20 "$BASE"/log/slurm*.log >&2
		exit 1
	fi
	sleep 0.2
done
