#!/usr/bin/env bash
# cmax health check, the HealthCheckProgram pass (docs/health.md).
#
# Part 1, no Slurm needed: a source that cannot be read is exit 66 with
# cmax_health_source_up 0 and one line on stderr (missing, a directory,
# /dev/zero, a FIFO, a socket, /dev/kmsg given as a file, a masked or
# forbidden /dev/kmsg); --report-only runs with no scheduler on PATH,
# reports an event once and remembers it; a scheduler that is missing,
# refuses or hangs is exit 69 with `error` set, and the drain stays
# pending and is retried.  The fake scontrol replays output recorded from
# Slurm 22.05.8 (Debian's slurm-wlm) on this project's test cluster.
#
# Part 2, a REAL Slurm (munge, slurmctld, two slurmd on loopback): an Xid
# 79 line drains the node with a reason naming code, GPU and time;
# application Xids (13, 31, 43, 45) do not; a node someone else drained
# keeps its reason; a node Slurm does not know is a failed, pending drain;
# a log that vanishes under slurmd's HealthCheckProgram turns
# cmax_health_source_up to 0; the textfile metrics are fresh and well-formed.
. "$(dirname "$0")/../lib/tap.sh"
# the interpreter itself, not a version-manager shim (0.5 s a call)
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
NOW=2026-11-30T06:00:00Z
jq_() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
metric() { awk -v m="$2" '$1==m{print $2}' "$1/cmax_health.prom" 2>/dev/null; }
rec() { # dir, exit, stdout-text, stderr-text, argv...
	local d=$1 x=$2 o=$3 e=$4; shift 4
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/argv"
	echo "$x" >"$d/exit"
	[ -n "$o" ] && printf '%s\n' "$o" >"$d/stdout"
	[ -n "$e" ] && printf '%s\n' "$e" >"$d/stderr"
	return 0
}
# hc DIR ARGS...: one `cmax health check --node node1` in the environment
# slurmd gives it, with only the commands recorded under DIR/cmd on PATH
# (none: no scheduler installed).  DIR/{out,err,rc}; state and textfile in DIR.
hc() {
	local d=$1; shift
	mkdir -p "$d/cmd"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$d/cmd" "$BUILD/fakecmd" "$d/bin" >/dev/null
	: >"$d/fake.log"
	timeout 20 env -i PATH="$d/bin" CMAX_NOW=$NOW CMAX_FAKE_DIR="$d/cmd" CMAX_FAKE_LOG="$d/fake.log" \
		CMAX_DATADIR="$SRCDIR/data" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" health check --node node1 --state "$d/state.json" --textfile "$d" "$@" >"$d/out" 2>"$d/err"
	echo $? >"$d/rc"
}
rc() { cat "$1/rc"; }
X79="2026-11-30T05:40:36+0000 node1 kernel: NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
X48="2026-11-30T05:50:00+0000 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, name=python3, Ch 00000008, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0."
X13="2026-11-30T05:45:00+0000 node1 kernel: NVRM: Xid (PCI:0000:5a:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0)"

# ---- a source that cannot be read: 66, source_up 0, one line on stderr ----
# unread(NAME, LOG, WHAT): the contract for every such source
unread() {
	local n=$1 log=$2 what=$3 d=$TMP/$1
	hc "$d" --log-file "$log" --json
	check "$n: exit 66 (rc $(rc "$d"))" test "$(rc "$d")" = 66
	check "$n: JSON error says why ('$(jq_ "$d/out" 'd["error"]' 2>/dev/null)')" \
		sh -c "$PY -c \"import json,sys; d=json.load(open('$d/out')); sys.exit(not ('$what' in d['error'] and d['source']['up'] is False and d['healthy'] is False and d['status']=='source_down' and d['node_action'] is None))\""
	check "$n: one line on stderr naming it" sh -c "[ \$(wc -l <'$d/err') = 1 ] && grep -q 'cannot see the log: .*$what' '$d/err'"
	check "$n: textfile cmax_health_source_up 0" test "$(metric "$d" cmax_health_source_up)" = 0
}
unread missing /nonexistent "/nonexistent: No such file or directory"
mkdir -p "$TMP/adir"
unread directory "$TMP/adir" "is a directory"
unread dev-zero /dev/zero "is a character device (1:5)"
mkfifo "$TMP/k.fifo"
unread fifo "$TMP/k.fifo" "is a FIFO"
"$PY" -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$TMP/k.sock"
unread socket "$TMP/k.sock" "is a socket"
unread kmsg-as-file /dev/kmsg "use --kmsg"
# text mode: nothing on stdout calls it healthy
hc "$TMP/missing-text" --log-file /nonexistent
check "missing, text: exit 66, stdout does not say healthy" \
	sh -c "[ \$(cat $TMP/missing-text/rc) = 66 ] && ! grep -q healthy $TMP/missing-text/out"
# the file appears later: read from its start
echo "$X79" >"$TMP/late.log"
hc "$TMP/missing" --log-file "$TMP/late.log" --report-only
check "a file that appears later is read from its start (rc $(rc "$TMP/missing"))" \
	sh -c "[ \$(cat $TMP/missing/rc) = 1 ] && grep -q 'would drain node node1' $TMP/missing/out"

# /dev/kmsg that cannot be read: masked by /dev/null (as containers do), or
# forbidden to a user without CAP_SYSLOG under kernel.dmesg_restrict=1
if unshare -m true 2>/dev/null; then
	mkdir -p "$TMP/kmsg-masked/cmd"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/kmsg-masked/cmd" "$BUILD/fakecmd" "$TMP/kmsg-masked/bin" >/dev/null
	unshare -m sh -c "mount --bind /dev/null /dev/kmsg && exec env -i PATH=$TMP/kmsg-masked/bin CMAX_DATADIR=$SRCDIR/data \
		$CMAX health check --kmsg --node node1 --state $TMP/kmsg-masked/state.json --textfile $TMP/kmsg-masked --json" \
		>"$TMP/kmsg-masked/out" 2>"$TMP/kmsg-masked/err"
	r=$?
	check "--kmsg masked by /dev/null: exit 66 (rc $r)" test "$r" = 66
	check "--kmsg masked: says it is not the ring" grep -q 'character device 1:3, not the kernel ring' "$TMP/kmsg-masked/err"
	check "--kmsg masked: source_up 0" test "$(metric "$TMP/kmsg-masked" cmax_health_source_up)" = 0
else
	skip "unshare -m not permitted here: masked /dev/kmsg"
fi
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CMAX"; then
	setpriv --reuid=65534 --regid=65534 --clear-groups env -i CMAX_DATADIR="$SRCDIR/data" \
		"$CMAX" health check --kmsg --node node1 --dry-run >"$TMP/kmsg-user.out" 2>"$TMP/kmsg-user.err"
	r=$?
	check "--kmsg without CAP_SYSLOG (dmesg_restrict=1): exit 66 (rc $r)" test "$r" = 66
	check "--kmsg without CAP_SYSLOG: says why" grep -q 'dmesg_restrict' "$TMP/kmsg-user.err"
else
	skip "not root, or dmesg_restrict=0, or the build is not readable by nobody: forbidden /dev/kmsg"
fi

# ---- report-only: no scheduler on PATH ----
R=$TMP/ro
echo "$X79" >"$R.log"
hc "$R" --log-file "$R.log" --report-only --json
check "report-only, Xid 79: exit 1 (rc $(rc "$R"))" test "$(rc "$R")" = 1
check "report-only: decision would_drain, nothing run" \
	test "$(jq_ "$R/out" 'd["node_action"]["decision"]+" "+str(all(c.get("planned") for c in d["node_action"]["commands"]))')" = "would_drain True"
check "report-only: the command it would run" \
	test "$(jq_ "$R/out" 'd["node_action"]["commands"][0]["command"]')" = "scontrol update NodeName=node1 State=DRAIN 'Reason=cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:40:36Z (reboot)'"
check "report-only: outstanding Xid 79, error null" test "$(jq_ "$R/out" 'str(d["outstanding"]["code"])+" "+str(d["error"])')" = "79 None"
check "report-only, no squeue: the affected jobs are unknown (squeue not found), never 0" \
	test "$(jq_ "$R/out" 'str(d["affected_jobs"]["count"])+" "+str("squeue" in d["affected_jobs"]["error"] and "not found" in d["affected_jobs"]["error"])')" = "None True"
check "  no cmax_health_affected_jobs sample, no job series" sh -c "! grep -Eq '^cmax_health_affected_job(s|_info)[ {]' $R/cmax_health.prom"
check "report-only metrics: report_only 1, unhealthy 1, drained 0, nothing pending" \
	test "$(metric "$R" cmax_health_report_only) $(metric "$R" cmax_health_unhealthy) $(metric "$R" cmax_health_node_drained) $(metric "$R" 'cmax_health_actions_pending{action="drain"}')" = "1 1 0 0"
hc "$R" --log-file "$R.log" --report-only
check "report-only, next pass: still exit 1 (outstanding)" test "$(rc "$R")" = 1
check "report-only, next pass: not reported again, no 'unhealthy'" \
	sh -c "! grep -Eq 'would|unhealthy' $R/out && grep -q 'outstanding since 2026-11-30T06:00:00Z' $R/out"
echo "$X13" >>"$R.log"
hc "$R" --log-file "$R.log" --report-only --json
check "report-only, an application Xid: the 79 is not reported again" test "$(jq_ "$R/out" 'd["node_action"]')" = None
hc "$R" --log-file "$R.log" --report-only --since
check "report-only --since: the same 79 read again is not reported again" \
	sh -c "[ \$(cat $R/rc) = 1 ] && ! grep -q would $R/out && grep -q 'reported before' $R/out"
check "  without -v: no line per code" sh -c "! grep -q '^  Xid ' $R/out"
V=$TMP/ro-v
cp "$R.log" "$V.log"
hc "$V" --log-file "$V.log" --report-only --since -v
check "-v: one line per code seen, with its count, device and action" \
	sh -c "grep -q '^  Xid 79 .*x1 on 0000:5a:00: ' $V/out && grep -q '^  Xid 13 .*x1 on 0000:5a:00: ' $V/out"
echo "$X48" >>"$R.log"
hc "$R" --log-file "$R.log" --report-only --json
check "report-only, a new Xid 48: reported (rc $(rc "$R"))" \
	test "$(rc "$R") $(jq_ "$R/out" 'd["node_action"]["decision"]+" "+d["outstanding"]["dev"]')" = "1 would_drain 0000:3b:00"
hc "$R" --log-file "$R.log" --report-only --acknowledge
check "report-only --acknowledge: healthy (rc $(rc "$R"))" \
	sh -c "[ \$(cat $R/rc) = 0 ] && grep -q 'healthy' $R/out && [ \$(awk '\$1==\"cmax_health_unhealthy\"{print \$2}' $R/cmax_health.prom) = 0 ]"
check "report-only: no scheduler command was ever looked for" test ! -s "$R/fake.log"
R=$TMP/ro-clear
echo "$X79" >"$R.log"
hc "$R" --log-file "$R.log" --report-only --resume-when-clear
hc "$R" --log-file "$R.log" --report-only --resume-when-clear --json
check "report-only --resume-when-clear: a clean pass clears it once (would_resume, rc $(rc "$R"))" \
	test "$(rc "$R") $(jq_ "$R/out" 'd["node_action"]["decision"]')" = "0 would_resume"
hc "$R" --log-file "$R.log" --report-only --resume-when-clear --json
check "report-only --resume-when-clear: and only once" test "$(rc "$R") $(jq_ "$R/out" 'd["node_action"]')" = "0 None"

# ---- a failed action: 69, error, pending, retried, counted ----
N=$TMP/nosched
echo "$X79" >"$N.log"
hc "$N" --log-file "$N.log" --json
check "no scontrol on PATH (not report-only): exit 69 (rc $(rc "$N"))" test "$(rc "$N")" = 69
check "no scontrol: error names it" \
	sh -c "$PY -c \"import json,sys; d=json.load(open('$N/out')); sys.exit(not ('scontrol' in d['error'] and 'not found on PATH' in d['error'] and d['status']=='action_failed' and d['pending']['action']=='drain'))\""
check "no scontrol: one line on stderr, kept pending" sh -c "[ \$(wc -l <$N/err) = 1 ] && grep -q 'kept pending' $N/err"
check "no scontrol: pending drain 1, failures 1" \
	test "$(metric "$N" 'cmax_health_actions_pending{action="drain"}') $(metric "$N" 'cmax_health_action_failures_total{action="drain"}')" = "1 1"
hc "$N" --log-file "$N.log" --json
check "no scontrol, next pass: retried (attempt 2, rc $(rc "$N"))" test "$(rc "$N") $(jq_ "$N/out" 'd["pending"]["attempts"]')" = "69 2"
check "no scontrol: failures counted per attempt" test "$(metric "$N" 'cmax_health_action_failures_total{action="drain"}')" = 2

F=$TMP/refused
SHOW="NodeName=node1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.13 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=vm Port=17101 Version=22.05.8 OS=Linux 6.1.0 #1 SMP PREEMPT_DYNAMIC  RealMemory=1000 AllocMem=0 FreeMem=23250 Sockets=2 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu  BootTime=2026-11-30T01:02:48 SlurmdStartTime=2026-11-30T01:36:40 LastBusyTime=2026-11-30T01:36:41 CfgTRES=cpu=2,mem=1000M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s"
DRAIN_ARGV=(update NodeName=node1 State=DRAIN "Reason=cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:40:36Z (reboot)")
rec "$F/cmd/scontrol/1-show" 0 "$SHOW" "" show node -o node1
rec "$F/cmd/scontrol/2-update" 1 "" "slurm_update error: Access/permission denied" "${DRAIN_ARGV[@]}"
# the jobs on node1 (squeue -o '%i|%u|%j': an array task, a name holding '|')
SQUEUE_ARGV=(-h -w node1 -t RUNNING -o '%i|%u|%j')
rec "$F/cmd/squeue/1-running" 0 "$(printf '%s\n' '4242|alice|train-llm' '4243_7|bob|sweep|lr=3e-4')" "" "${SQUEUE_ARGV[@]}"
echo "$X79" >"$F.log"
hc "$F" --log-file "$F.log" --json
check "scontrol refuses the drain: exit 69 (rc $(rc "$F"))" test "$(rc "$F")" = 69
check "refused: error carries scontrol's reason" \
	sh -c "$PY -c \"import json,sys; d=json.load(open('$F/out')); sys.exit(not ('Access/permission denied' in d['error'] and d['node_action']['decision']=='error' and d['node_action']['error']==d['error']))\""
check "refused: every scontrol and squeue call was a recorded one" test ! -s "$F/fake.log"
check "refused drain: the jobs on the node are listed all the same (the fault hit them)" \
	test "$(jq_ "$F/out" 'str(d["affected_jobs"]["count"])+" "+" ".join(j["id"]+"/"+j["user"]+"/"+j["name"] for j in d["affected_jobs"]["jobs"])')" = \
	"2 4242/alice/train-llm 4243_7/bob/sweep|lr=3e-4"
check "  metrics: cmax_health_affected_jobs 2, one series per job by id and user" \
	test "$(metric "$F" cmax_health_affected_jobs) $(metric "$F" 'cmax_health_affected_job_info{job_id="4242",user="alice"}') $(metric "$F" 'cmax_health_affected_job_info{job_id="4243_7",user="bob"}')" = "2 1 1"
check "refused: pending drain 1, node not counted as drained" \
	test "$(metric "$F" 'cmax_health_actions_pending{action="drain"}') $(metric "$F" cmax_health_node_drained)" = "1 0"
# the controller takes it now: the next pass, with nothing new in the log, drains
rec "$F/cmd/scontrol/2-update" 0 "" "" "${DRAIN_ARGV[@]}"
rm -f "$F/cmd/scontrol/2-update/stderr"
hc "$F" --log-file "$F.log" --json
check "retry: the pending drain is done (rc $(rc "$F"), decision $(jq_ "$F/out" 'd["node_action"]["decision"]'))" \
	test "$(rc "$F") $(jq_ "$F/out" 'd["node_action"]["decision"]+" "+str(d["pending"])+" "+str(d["error"])')" = "1 drain None None"
check "retry: pending 0, drained 1, the one failure still counted" \
	test "$(metric "$F" 'cmax_health_actions_pending{action="drain"}') $(metric "$F" cmax_health_node_drained) $(metric "$F" 'cmax_health_action_failures_total{action="drain"}')" = "0 1 1"
check "retry: the jobs listed at the event are kept with the drain (not listed again)" \
	test "$(metric "$F" cmax_health_affected_jobs) $(jq_ "$F/state.json" 'list(d["sources"].values())[0]["affected_jobs"]["count"]')" = "2 2"

# a refused resume (--resume-when-clear, the node drained by cmax above):
# pending as "resume", retried, counted apart from drains
SHOW_DRAINED=${SHOW/State=IDLE/State=IDLE+DRAIN}" Reason=cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:40:36Z (reboot) [root@2026-11-30T06:00:00]"
rm -rf "$F/cmd/scontrol"
rec "$F/cmd/scontrol/1-show" 0 "$SHOW_DRAINED" "" show node -o node1
rec "$F/cmd/scontrol/2-resume" 1 "" "slurm_update error: Access/permission denied" update NodeName=node1 State=RESUME
hc "$F" --log-file "$F.log" --resume-when-clear
check "resume refused: exit 69, pending resume 1, resume failures 1, still drained" \
	test "$(rc "$F") $(metric "$F" 'cmax_health_actions_pending{action="resume"}') $(metric "$F" 'cmax_health_action_failures_total{action="resume"}') $(metric "$F" cmax_health_node_drained)" = "69 1 1 1"
rec "$F/cmd/scontrol/2-resume" 0 "" "" update NodeName=node1 State=RESUME
rm -f "$F/cmd/scontrol/2-resume/stderr"
hc "$F" --log-file "$F.log"
check "pending resume retried (even without the flag) and done: exit 0, nothing pending, not drained" \
	test "$(rc "$F") $(metric "$F" 'cmax_health_actions_pending{action="resume"}') $(metric "$F" cmax_health_node_drained) $(metric "$F" cmax_health_unhealthy)" = "0 0 0 0"
check "resumed: the affected jobs are forgotten (state and metrics)" \
	sh -c "! grep -Eq '^cmax_health_affected_job(s|_info)[ {]' $F/cmax_health.prom && [ \"\$($PY -c 'import json,sys; print(\"affected_jobs\" in list(json.load(open(sys.argv[1]))[\"sources\"].values())[0])' $F/state.json)\" = False ]"
check "refused resume: only recorded scontrol calls, no squeue" test ! -s "$F/fake.log"

H=$TMP/hang
rec "$H/cmd/scontrol/1-show" 0 "$SHOW" "" show node -o node1
rec "$H/cmd/scontrol/2-update" 0 "" "" "${DRAIN_ARGV[@]}"
: >"$H/cmd/scontrol/2-update/hang"
echo "$X79" >"$H.log"
t0=$SECONDS
hc "$H" --log-file "$H.log" --timeout 1 --json
check "scontrol update hangs: exit 69 after --timeout 1 ($((SECONDS - t0)) s)" \
	sh -c "[ \$(cat $H/rc) = 69 ] && [ $((SECONDS - t0)) -le 5 ]"
check "hang: error says it timed out" sh -c "$PY -c \"import json,sys; d=json.load(open('$H/out')); sys.exit('timed out' not in d['error'])\""

if command -v promtool >/dev/null; then
	check "promtool accepts the textfile of a failed action and of a source down" \
		sh -c "promtool check metrics <$F/cmax_health.prom && promtool check metrics <$TMP/missing-text/cmax_health.prom"
fi

# ---- part 2: a real Slurm ----
for c in slurmctld slurmd munged scontrol sinfo; do
	command -v $c >/dev/null || { skip "$c not installed (apt-get install slurm-wlm slurmctld slurmd slurm-client munge)"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }

chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
BASE=$TMP/slurm
export BASE NNODES=2 HC_INTERVAL=1
mkdir -p "$BASE/etc" "$BASE/prom-node1" "$BASE/prom-node2"
: >"$BASE/kern-node1.log"
: >"$BASE/kern-node2.log"
# The program slurmd runs: nothing exported; cmax finds slurm.conf through
# the slurmd that started it (-f), and PATH through its own default.
HEALTH_PROGRAM=$BASE/etc/hc.sh
cat >"$HEALTH_PROGRAM" <<EOF
#!/bin/sh
exec $CMAX health check --log-file $BASE/kern-\$SLURMD_NODENAME.log --node "\$SLURMD_NODENAME" \
	--state $BASE/health-state.json --textfile $BASE/prom-\$SLURMD_NODENAME >>$BASE/hc-\$SLURMD_NODENAME.out 2>&1
EOF
chmod 755 "$HEALTH_PROGRAM"
export HEALTH_PROGRAM
trap '"$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
if ! "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
	not_ok "slurm-up"; diag <"$TMP/up.log"; done_testing; exit 1
fi
export SLURM_CONF=$BASE/etc/slurm.conf

state() { sinfo -h -n "$1" -o %T; }
reason() { sinfo -h -R -n "$1" -o %E; }
# wait_for SECONDS COMMAND...: poll every 0.1 s
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done
}
prom() { cat "$BASE/prom-$1/cmax_health.prom" 2>/dev/null; }
seen() { prom "$1" | grep -q "^cmax_health_xid_events_total{code=\"$2\"} [1-9]"; }
line() { echo "$(date -u +%Y-%m-%dT%H:%M:%S+0000) $(hostname -s) kernel: NVRM: Xid (PCI:0000:5a:00): $1" >>"$BASE/kern-$2.log"; }

check "slurmd ran the health program (textfile written)" wait_for 10 test -s "$BASE/prom-node1/cmax_health.prom"

# Application Xids: seen, counted, never a drain.
line "13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0)" node1
line "31, pid=4242, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f0a_00000000" node1
line "43, pid=4242, name=python3, Ch 00000008" node1
line "45, pid=4242, name=python3, Ch 00000008" node1
check "Xids 13/31/43/45 were read by the health program" wait_for 10 seen node1 45
sleep 1.5
check "node1 not drained after Xids 13, 31, 43, 45 (state $(state node1))" test "$(state node1)" = idle
grep -q 'cmax_health_action{action="restart_app"} 1' <(prom node1) && ok "last action restart_app" || not_ok "last action restart_app"

# A job runs on node1 when the Xid 79 comes: the pass names it.
JOB=$(sbatch --parsable -w node1 -N1 -n1 -J cmax-victim -o /dev/null --wrap 'sleep 600' 2>"$TMP/sbatch.err")
JOB=${JOB%%;*}
running() { [ "$(squeue -h -j "$JOB" -o %T 2>/dev/null)" = RUNNING ]; }
check "sbatch gave a job id (${JOB:-none}) and it runs on node1" wait_for 20 running || diag <"$TMP/sbatch.err"

# Xid 79: drained, reason names code, PCI, time and action.
t0=$(date +%s.%N)
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." node1
if wait_for 10 sh -c "sinfo -h -n node1 -o %T | grep -q drain"; then
	ok "Xid 79 drained node1 in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s (HealthCheckInterval=$HC_INTERVAL)"
else
	not_ok "Xid 79 drained node1 (state $(state node1))"; diag <"$BASE/hc-node1.out"
fi
r=$(reason node1)
check "drain reason names code, PCI, time, action: '$r'" \
	bash -c '[[ $1 =~ ^cmax:\ Xid\ 79\ on\ 0000:5a:00\ at\ 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]{8}Z\ \(reboot\)$ ]]' _ "$r"
check "metrics say drained" wait_for 5 sh -c "grep -q '^cmax_health_node_drained 1' $BASE/prom-node1/cmax_health.prom"
check "metrics count the 79" seen node1 79
check "the job running at the drain is named: cmax_health_affected_job_info{job_id=\"$JOB\",user=\"$(id -un)\"} 1, count 1" \
	sh -c "grep -qxF 'cmax_health_affected_job_info{job_id=\"$JOB\",user=\"$(id -un)\"} 1' $BASE/prom-node1/cmax_health.prom && grep -qx 'cmax_health_affected_jobs 1' $BASE/prom-node1/cmax_health.prom" ||
	diag <"$BASE/prom-node1/cmax_health.prom"
check "  and the pass said so (job id, user, name)" grep -qF "jobs running on node1: 1: $JOB ($(id -un), cmax-victim)" "$BASE/hc-node1.out"
scancel "$JOB" 2>/dev/null

# Someone else's drain is left alone.
scontrol update NodeName=node2 State=DRAIN Reason="maintenance"
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." node2
check "node2's health program saw the 79" wait_for 10 seen node2 79
check "foreign drain kept its reason ('$(reason node2)')" test "$(reason node2)" = maintenance
grep -q '^cmax_health_node_drained 0' <(prom node2) && ok "node2: not counted as cmax's drain" || not_ok "node2: not counted as cmax's drain"
grep -q 'someone else' "$BASE/hc-node2.out" && ok "the pass says it left node2 alone" || { not_ok "the pass says it left node2 alone"; diag <"$BASE/hc-node2.out"; }

# Freshness: the last-check time moves with every pass.
ts=$(prom node2 | awk '/^cmax_health_last_check_timestamp_seconds/{print $2}')
now=$(date +%s)
check "last check is fresh ($((now - ts)) s old)" test $((now - ts)) -le 5
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts the textfile" sh -c "promtool check metrics <$BASE/prom-node1/cmax_health.prom && promtool check metrics <$BASE/prom-node2/cmax_health.prom"
else
	skip "promtool not installed (apt-get install prometheus)"
fi
slurmd_restarts=$(grep -c 'HealthCheck' "$BASE/log/slurmd-node1.log" 2>/dev/null || true)
[ -s "$BASE/hc-node1.out" ] && ok "health program output kept ($slurmd_restarts slurmd log lines)" || not_ok "health program output kept"

# A node the controller does not know: the drain fails, is kept, is retried.
U=$TMP/unknown
mkdir -p "$U"
echo "$(date -u +%Y-%m-%dT%H:%M:%S+0000) $(hostname -s) kernel: NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." >"$U/kern.log"
"$CMAX" health check --log-file "$U/kern.log" --node nosuchnode --state "$U/state.json" --textfile "$U" --json >"$U/out" 2>"$U/err"
r=$?
check "real Slurm, unknown node: exit 69 (rc $r)" test "$r" = 69
check "unknown node: error carries Slurm's answer" \
	sh -c "$PY -c \"import json,sys; d=json.load(open('$U/out')); sys.exit(not ('Node nosuchnode not found' in d['error'] and d['pending']['action']=='drain'))\""
"$CMAX" health check --log-file "$U/kern.log" --node nosuchnode --state "$U/state.json" --textfile "$U" --json >"$U/out" 2>"$U/err"
r=$?
check "unknown node, next pass: retried and failing still (rc $r, attempts $(jq_ "$U/out" 'd["pending"]["attempts"]'))" \
	test "$r $(jq_ "$U/out" 'd["pending"]["attempts"]')" = "69 2"
check "unknown node: metrics pending 1, failures 2" \
	test "$(metric "$U" 'cmax_health_actions_pending{action="drain"}') $(metric "$U" 'cmax_health_action_failures_total{action="drain"}')" = "1 2"

# The log vanishes under slurmd's HealthCheckProgram: the next run says so.
rm -f "$BASE/kern-node2.log"
check "vanished log under slurmd: textfile source_up 0" \
	wait_for 10 sh -c "grep -q '^cmax_health_source_up 0' $BASE/prom-node2/cmax_health.prom"
check "vanished log under slurmd: the program said why" grep -q 'cannot see the log: .*kern-node2.log vanished' "$BASE/hc-node2.out"
done_testing
