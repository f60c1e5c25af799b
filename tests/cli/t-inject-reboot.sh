#!/usr/bin/env bash
# cmax reboot-test. A real reboot cannot happen here, so this covers what
# can be shown honestly (docs/reliability.md says what is not exercised):
#   Slurm (REAL slurmctld/slurmd, RebootProgram=/bin/true):
#     - a reboot pending behind a running job (ASAP), then Ctrl-C: the
#       pending reboot is cancelled (scontrol cancel_reboot), node clean
#     - the same on --timeout: cancelled, FAIL
#     - an issued "reboot" that never brings a new boot: FAIL, and the
#       report says it cannot be undone
#   Kubernetes (fake kubectl with a node whose bootID changes on reboot):
#     - cordon, drain, reboot pod, new bootID, uncordon, nvidia-smi pod: PASS
#     - a reboot command that does nothing: same bootID, FAIL
#     - Ctrl-C during the drain: uncordoned, never rebooted
. "$(dirname "$0")/../lib/tap.sh"
. "$SRCDIR/tests/slurm/inject-lib.sh"
PY=${PYTHON:-python3}
unset SLURM_JOB_NODELIST SLURM_JOB_ID
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1; }
# validated DESC FILE...: docs/schema/reboot-test.schema.json, events and verdict consistent, and
# python3-jsonschema and cmax's own validator agreeing (tests/contract/validate-docs.py)
validated() {
	local d=$1; shift
	if "$PY" "$SRCDIR/tests/contract/validate-docs.py" --c-validator "$BUILD/test_docschemas" "$@" >"$TMP/vd" 2>&1; then
		ok "$d"
	else
		not_ok "$d"; diag <"$TMP/vd"
	fi
}

# ---------------------------------------------------------------- Kubernetes
K=$TMP/k8s
mkdir -p "$K/bin"
echo 11111111-2222-3333-4444-555555555555 >"$K/boot"
cat >"$K/bin/kubectl" <<EOF
#!/bin/sh
# fake kubectl for node gpu-1: "debug node/" reboots it (NotReady for three
# polls, then Ready with a new bootID); DRAIN_SLEEP slows the drain down
echo "\$*" >>$K/calls
case "\$1" in
get)
	case "\$2" in
	node)
		u=''; [ -e $K/cordoned ] && u='"unschedulable":true,'
		r=True
		if [ -e $K/rebooting ]; then
			n=\$(cat $K/rebooting); r=False
			if [ "\$n" -ge 3 ]; then rm $K/rebooting; echo aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee >$K/boot; r=True
			else echo \$((n + 1)) >$K/rebooting; fi
		fi
		printf '{"kind":"Node","metadata":{"name":"gpu-1"},"spec":{%s"taints":[]},"status":{"conditions":[{"type":"Ready","status":"%s"}],"nodeInfo":{"bootID":"%s"}}}\n' "\$u" "\$r" "\$(cat $K/boot)" ;;
	pod) printf Succeeded ;;
	esac ;;
cordon) touch $K/cordoned; echo "node/\$2 cordoned" ;;
uncordon) rm -f $K/cordoned; echo "node/\$2 uncordoned" ;;
drain) sleep \${DRAIN_SLEEP:-0}; echo "node/\$2 drained" ;;
debug) echo 0 >$K/rebooting ;;
run) echo "pod/\$2 created" ;;
delete) echo deleted ;;
*) echo "fake kubectl: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod 755 "$K/bin/kubectl"
kube() { PATH=$K/bin:$PATH "$CMAX" reboot-test --k8s --node gpu-1 --i-own-this-node --yes --json --poll-ms 100 "$@"; }

kube --timeout 20 >"$TMP/k1.json" 2>"$TMP/k1.err"
check "k8s reboot: exit 0, got $?" test $? = 0
check "k8s reboot: verdict PASS" test "$(jget "$TMP/k1.json" 'd["verdict"]["status"]')" = PASS
check "k8s reboot: events in order" test "$(jget "$TMP/k1.json" '[e["event"] for e in d["events"]]')" = \
	"['boot_id_before', 'cordoned', 'drained', 'reboot_command', 'down', 'back', 'uncordoned', 'usable']"
check "k8s reboot: a new boot ID" test "$(jget "$TMP/k1.json" '(d["boot_id_before"][:8], d["boot_id_after"][:8])')" = "('11111111', 'aaaaaaaa')"
check "k8s reboot: the reboot ran in a privileged debug pod on the node" \
	grep -q '^debug node/gpu-1 -q --profile=sysadmin --image busybox:1.36 -- chroot /host systemctl reboot$' "$K/calls"
check "k8s reboot: uncordoned after the return" grep -q '^uncordon gpu-1$' "$K/calls"
check "k8s reboot: a pod ran nvidia-smi there and was deleted" grep -q '^delete pod cmax-probe-' "$K/calls"
check "k8s reboot: node left uncordoned" test ! -e "$K/cordoned"

: >"$K/calls"
kube --timeout 3 --reboot-cmd true >"$TMP/k2.json" 2>"$TMP/k2.err"
check "k8s no-op reboot: exit 2 (FAIL), got $?" test $? = 2
check "k8s no-op reboot: boot ID row FAIL" test "$(jget "$TMP/k2.json" '[r["status"] for r in d["results"]]')" = "['FAIL', 'FAIL']"
check "k8s no-op reboot: the report says the node stays cordoned" grep -q "stays cordoned: the reboot was issued" "$TMP/k2.json"
rm -f "$K/cordoned"

: >"$K/calls"
# cmax itself in the background (not a shell function around it): the signal must reach it
DRAIN_SLEEP=3 PATH=$K/bin:$PATH "$CMAX" reboot-test --k8s --node gpu-1 --i-own-this-node --yes --json --poll-ms 100 \
	--timeout 20 >"$TMP/k3.json" 2>"$TMP/k3.err" &
pid=$!
wait_for 5 grep -q '^drain' "$K/calls"
kill -INT $pid
wait $pid
check "k8s interrupted during the drain: exit 130, got $?" test $? = 130
check "k8s interrupted: uncordoned" grep -q '^uncordon gpu-1$' "$K/calls"
check "k8s interrupted: never rebooted" test -z "$(grep '^debug' "$K/calls")"
check "k8s interrupted: clean-up reported" test "$(jget "$TMP/k3.json" 'd["cleanup"]')" = "uncordoned gpu-1 (evicted pods are not restored)"
validated "k8s: every document validates (PASS, FAIL, interrupted)" "$TMP"/k{1,2,3}.json

# ---------------------------------------------------------------- Slurm
for c in slurmctld slurmd munged scontrol sinfo srun sbatch; do
	command -v $c >/dev/null || { skip "$c not installed: Slurm part"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }
[ "$(nproc)" -ge 2 ] || { skip "needs 2 CPUs (a job and the boot-id step side by side)"; done_testing; exit; }
chmod 755 "$TMP"
BASE=$TMP/slurm
trap 'inject_slurm_down "$BASE"; [ -n "${KEEPT:-}" ] || rm -rf "$TMP"' EXIT
if ! BASE=$BASE NNODES=3 HEALTH_PROGRAM="" EXTRA_CONF="RebootProgram=/bin/true" \
	"$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
	not_ok "slurm-up"; diag <"$TMP/up.log"; done_testing; exit 1
fi
export SLURM_CONF=$BASE/etc/slurm.conf
st() { scontrol show node -o "${1:-node1}" | grep -o ' State=[^ ]*'; }
busy() { case $(sinfo -h -n "$1" -o %T) in mix*|alloc*) return 0 ;; esac; return 1; }

# a job on node1 and one on node2 keep an ASAP reboot pending there; node3 stays idle.
# (each test on its own node: a step waiting behind a just-cleared drain can wait
# for the next scheduling pass)
for n in node1 node2; do (cd "$TMP" && sbatch -w $n -n1 -o /dev/null --wrap 'sleep 120' >/dev/null); done
check "a job runs on node1 and node2" wait_for 15 eval 'busy node1 && busy node2'
SLURM_JOB_NODELIST=node1 "$CMAX" reboot-test --node node1 --yes --json --poll-ms 200 --timeout 60 >"$TMP/s1.json" 2>"$TMP/s1.err" &
pid=$!
check "reboot pending behind the job (ASAP drains first)" wait_for 15 eval 'st | grep -q REBOOT_REQUESTED'
kill -INT $pid
wait $pid
rc=$?
check "slurm interrupted: exit 130, got $rc" test $rc = 130
check "slurm interrupted: pending reboot cancelled" test "$(jget "$TMP/s1.json" 'd["cleanup"]')" = "cancelled the pending reboot (scontrol cancel_reboot node1)"
check "slurm interrupted: node1 has neither reboot nor drain flags ($(st))" eval '! st | grep -qE "REBOOT|DRAIN"'
check "slurm interrupted: the boot ID was read first (srun)" grep -qE '"boot_id_before": "[0-9a-f-]{36}"' "$TMP/s1.json"

SLURM_JOB_NODELIST=node2 "$CMAX" reboot-test --node node2 --yes --json --poll-ms 200 --timeout 4 >"$TMP/s2.json" 2>"$TMP/s2.err"
rc=$?
check "slurm reboot never issued in time: exit 2, got $rc" test $rc = 2
check "slurm timeout: pending reboot cancelled" test "$(jget "$TMP/s2.json" 'd["cleanup"]')" = "cancelled the pending reboot (scontrol cancel_reboot node2)"
check "slurm timeout: node2 clean again ($(st node2))" eval '! st node2 | grep -qE "REBOOT|DRAIN"'

# node3 is idle: the reboot is issued at once, and /bin/true never brings a new boot
SLURM_JOB_NODELIST=node3 "$CMAX" reboot-test --node node3 --yes --json --poll-ms 200 --timeout 6 >"$TMP/s3.json" 2>"$TMP/s3.err"
rc=$?
check "slurm reboot issued but no new boot: exit 2, got $rc" test $rc = 2
# An idle node may go from requested to REBOOT_ISSUED between two polls, so
# "pending" is optional; the order of the rest is not.
check "slurm issued: REBOOT_ISSUED seen" test "$(jget "$TMP/s3.json" '[e["event"] for e in d["events"] if e["event"] != "pending"]')" = "['boot_id_before', 'requested', 'issued', 'down']"
check "slurm issued: cannot be undone, says so" grep -q "already issued and cannot be undone" "$TMP/s3.json"
validated "slurm: every document validates (interrupted, timed out, issued)" "$TMP"/s{1,2,3}.json
done_testing
