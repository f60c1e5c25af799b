#!/usr/bin/env bash
# cmax health --k8s: the exact kubectl commands (fake kubectl that answers
# only the recorded argv, so any other command fails the test): the
# cmax.io/xid taint, cordon and a node condition for an Xid 79; nothing but
# a read for a node someone else cordoned; nothing at all for an Xid 13.
# A kubectl that is refused (RBAC Forbidden, in the API server's message
# format) or hangs is exit 69 with `error` set and a pending drain; the
# retry does only the steps still missing.  --report-only with no kubectl
# on PATH.  --journal (a DaemonSet reading the host journal) through a fake
# journalctl replaying systemd 252's output: missing, failing, or with no
# kernel message is a source that cannot be read (66).
. "$(dirname "$0")/../lib/tap.sh"
# the interpreter itself, not a version-manager shim (0.5 s a call)
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
NOW=2026-11-30T05:00:00Z
rec() { # dir, stdout-file-or-empty, argv...
	local d=$1 out=$2; shift 2
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/argv"
	[ -n "$out" ] && cp "$out" "$d/stdout"
	return 0
}
node_json() { # unschedulable taint-json
	echo "{\"kind\":\"Node\",\"metadata\":{\"name\":\"gpu1\"},\"spec\":{\"unschedulable\":$1,\"taints\":$2}}"
}
run() { # name, log line, extra args...
	local n=$1 l=$2; shift 2
	mkdir -p "$TMP/$n/bin"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/$n/cmd" "$BUILD/fakecmd" "$TMP/$n/bin" >/dev/null
	echo "$l" >"$TMP/$n/kern.log"
	: >"$TMP/$n/fake.log"
	env -i PATH="$TMP/$n/bin" CMAX_NOW=$NOW CMAX_FAKE_DIR="$TMP/$n/cmd" CMAX_FAKE_LOG="$TMP/$n/fake.log" \
		CMAX_DATADIR="$SRCDIR/data" "$CMAX" health check --k8s --node gpu1 --log-file "$TMP/$n/kern.log" \
		--state "$TMP/$n/state.json" --json "$@" >"$TMP/$n/out" 2>"$TMP/$n/err"
	echo $? >"$TMP/$n/rc"
}
X79="NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
jq_() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# the running pods on gpu1, as kubectl prints a pod list (trimmed to what
# identifies a pod): what a fault there hits
PODS=(get pods -A --field-selector spec.nodeName=gpu1,status.phase=Running -o json)
cat >"$TMP/pods.json" <<'EOF'
{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "train-llm-0", "namespace": "team-a", "uid": "0b7c5c1e-5f0e-4c1a-9d2e-1f6d1c0a9b01"},
            "spec": {"nodeName": "gpu1"},
            "status": {"phase": "Running"}
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "nvidia-device-plugin-8x2kq", "namespace": "gpu-operator", "uid": "6a1f0d2c-2b3e-4f5a-8c7d-9e0f1a2b3c4d"},
            "spec": {"nodeName": "gpu1"},
            "status": {"phase": "Running"}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
EOF

# 1. schedulable node, Xid 79: cordon + taint + condition, exactly these argv
C=$TMP/cordon/cmd/kubectl
node_json false '[]' >"$TMP/n.json"
rec "$C/1-get" "$TMP/n.json" get node gpu1 -o json
rec "$C/5-pods" "$TMP/pods.json" "${PODS[@]}"
rec "$C/2-cordon" "" cordon gpu1
rec "$C/3-taint" "" taint node gpu1 cmax.io/xid=79:NoSchedule --overwrite
rec "$C/4-patch" "" patch node gpu1 --subresource=status --type=strategic -p \
	'{"status":{"conditions":[{"lastHeartbeatTime":"2026-11-30T05:00:00Z","lastTransitionTime":"2026-11-30T05:00:00Z","message":"cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:00:00Z (reboot)","reason":"Xid79","status":"True","type":"CmaxGpuXid"}]}}'
run cordon "$X79"
check "Xid 79: exit 1 (rc $(cat "$TMP/cordon/rc"))" test "$(cat "$TMP/cordon/rc")" = 1
check "Xid 79: every kubectl call was the recorded one" test ! -s "$TMP/cordon/fake.log" || diag <"$TMP/cordon/fake.log"
check "Xid 79: decision drain" test "$(jq_ "$TMP/cordon/out" 'd["node_action"]["decision"]')" = drain
check "Xid 79: four commands ran" test "$(jq_ "$TMP/cordon/out" 'len(d["node_action"]["commands"])')" = 4
check "Xid 79: the running pods listed as the affected jobs (namespace/name)" \
	test "$(jq_ "$TMP/cordon/out" 'str(d["affected_jobs"]["count"])+" "+" ".join(j["id"]+":"+j["user"] for j in d["affected_jobs"]["jobs"])+" "+d["affected_jobs"]["source"]')" = \
	"2 team-a/train-llm-0:team-a gpu-operator/nvidia-device-plugin-8x2kq:gpu-operator kubectl"
check "Xid 79: kept in the state with the drain" \
	test "$(jq_ "$TMP/cordon/state.json" 'list(d["sources"].values())[0]["affected_jobs"]["count"]')" = 2

# 2. dry run: the node is read, the three changes are only planned
run cordon "$X79" --dry-run --state "$TMP/dry.json"
check "dry run: only the read ran" test ! -s "$TMP/cordon/fake.log"
check "dry run: three planned commands" test "$(jq_ "$TMP/cordon/out" 'sum(1 for c in d["node_action"]["commands"] if c.get("planned"))')" = 3
check "dry run: the pods are listed all the same (a read)" test "$(jq_ "$TMP/cordon/out" 'd["affected_jobs"]["count"]')" = 2

# 3. cordoned by someone else: left alone (only the read is recorded)
F=$TMP/foreign/cmd/kubectl
node_json true '[{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}]' >"$TMP/f.json"
rec "$F/1-get" "$TMP/f.json" get node gpu1 -o json
run foreign "$X79"
check "foreign cordon: no other kubectl call" test ! -s "$TMP/foreign/fake.log"
check "foreign cordon: decision foreign_drain" test "$(jq_ "$TMP/foreign/out" 'd["node_action"]["decision"]')" = foreign_drain
check "foreign cordon: no pods listed (not cmax's action)" test "$(jq_ "$TMP/foreign/out" 'd["affected_jobs"]')" = None

# 4. Xid 13: no kubectl at all (an empty recording dir: any call is logged)
mkdir -p "$TMP/app/cmd/kubectl"
run app "NVRM: Xid (PCI:0000:5a:00): 13, pid=1, name=a, Graphics SM Warp Exception"
check "Xid 13: exit 0" test "$(cat "$TMP/app/rc")" = 0
check "Xid 13: kubectl never called" test ! -s "$TMP/app/fake.log"
check "Xid 13: action restart_app" test "$(jq_ "$TMP/app/out" 'd["action"]')" = restart_app

# 5. policy override and a bad policy
echo '{"overrides":{"13":"reset_gpu"}}' >"$TMP/p.json"
rec "$TMP/app/cmd/kubectl/1-get" "$TMP/f.json" get node gpu1 -o json
run app "NVRM: Xid (PCI:0000:5a:00): 13, pid=1, name=a, Graphics SM Warp Exception" --policy "$TMP/p.json" --state "$TMP/p-state.json"
check "override 13 -> reset_gpu acts (exit 1)" test "$(cat "$TMP/app/rc")" = 1
echo '{"overrides":{"13":"explode"}}' >"$TMP/bad.json"
run app "x" --policy "$TMP/bad.json"
check "bad policy: exit 65" test "$(cat "$TMP/app/rc")" = 65

metric() { awk -v m="$2" '$1==m{print $2}' "$1/cmax_health.prom" 2>/dev/null; }
PATCH79='{"status":{"conditions":[{"lastHeartbeatTime":"2026-11-30T05:00:00Z","lastTransitionTime":"2026-11-30T05:00:00Z","message":"cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:00:00Z (reboot)","reason":"Xid79","status":"True","type":"CmaxGpuXid"}]}}'
FORBIDDEN='Error from server (Forbidden): nodes "gpu1" is forbidden: User "system:serviceaccount:cmax:cmax-health" cannot patch resource "nodes" in API group "" at the cluster scope'

# 6. the taint is refused: 69, error, pending; nothing else tried
D=$TMP/forbid/cmd/kubectl
rec "$D/1-get" "$TMP/n.json" get node gpu1 -o json
rec "$D/2-taint" "" taint node gpu1 cmax.io/xid=79:NoSchedule --overwrite
echo "$FORBIDDEN" >"$D/2-taint/stderr"; echo 1 >"$D/2-taint/exit"
rec "$D/3-pods" "" "${PODS[@]}"
echo "$FORBIDDEN" >"$D/3-pods/stderr"; echo 1 >"$D/3-pods/exit"
mkdir -p "$TMP/forbid/prom"
run forbid "$X79" --textfile "$TMP/forbid/prom"
check "taint refused: exit 69 (rc $(cat "$TMP/forbid/rc"))" test "$(cat "$TMP/forbid/rc")" = 69
check "taint refused: error carries the API server's answer" \
	sh -c "$PY -c \"import json,sys; d=json.load(open('$TMP/forbid/out')); sys.exit(not ('Forbidden' in d['error'] and d['node_action']['decision']=='error' and d['pending']['action']=='drain'))\""
check "taint refused: no cordon or patch after it (only recorded calls)" test ! -s "$TMP/forbid/fake.log"
check "taint refused: metrics pending 1, failures 1" \
	test "$(metric "$TMP/forbid/prom" 'cmax_health_actions_pending{action="drain"}') $(metric "$TMP/forbid/prom" 'cmax_health_action_failures_total{action="drain"}')" = "1 1"
check "taint refused, pods forbidden too: the jobs are unknown with kubectl's reason, never 0" \
	sh -c "$PY -c \"import json,sys; d=json.load(open('$TMP/forbid/out'))['affected_jobs']; sys.exit(not (d['count'] is None and 'Forbidden' in d['error'] and 'jobs' not in d))\""
check "  and no cmax_health_affected_jobs sample" sh -c "! grep -q '^cmax_health_affected_jobs ' '$TMP/forbid/prom/cmax_health.prom'"

# 7. the taint went on, the cordon was refused; the retry (nothing new in the
# log) sees cmax's taint on a schedulable node and does only what is missing
rm -rf "$D"
rec "$D/1-get" "$TMP/n.json" get node gpu1 -o json
rec "$D/2-taint" "" taint node gpu1 cmax.io/xid=79:NoSchedule --overwrite
rec "$D/3-cordon" "" cordon gpu1
echo "$FORBIDDEN" >"$D/3-cordon/stderr"; echo 1 >"$D/3-cordon/exit"
rec "$D/4-pods" "$TMP/pods.json" "${PODS[@]}"
run forbid "$X79" --state "$TMP/forbid/s2.json" --textfile "$TMP/forbid/prom"
check "cordon refused after the taint: exit 69" test "$(cat "$TMP/forbid/rc")" = 69
rm -rf "$D"
node_json false '[{"key":"cmax.io/xid","value":"79","effect":"NoSchedule"}]' >"$TMP/t.json"
rec "$D/1-get" "$TMP/t.json" get node gpu1 -o json
rec "$D/2-cordon" "" cordon gpu1
rec "$D/3-patch" "" patch node gpu1 --subresource=status --type=strategic -p "$PATCH79"
: >"$TMP/forbid/kern.log.next"
mkdir -p "$TMP/forbid/bin"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/forbid/cmd" "$BUILD/fakecmd" "$TMP/forbid/bin" >/dev/null
env -i PATH="$TMP/forbid/bin" CMAX_NOW=$NOW CMAX_FAKE_DIR="$TMP/forbid/cmd" CMAX_FAKE_LOG="$TMP/forbid/fake.log" \
	CMAX_DATADIR="$SRCDIR/data" "$CMAX" health check --k8s --node gpu1 --log-file "$TMP/forbid/kern.log" \
	--state "$TMP/forbid/s2.json" --textfile "$TMP/forbid/prom" --json >"$TMP/forbid/out" 2>"$TMP/forbid/err"
r=$?
check "retry completes the isolation: exit 1, decision drain (rc $r)" \
	test "$r $(jq_ "$TMP/forbid/out" 'd["node_action"]["decision"]+" "+str(d["pending"])')" = "1 drain None"
check "retry: the taint was not applied again, only cordon and patch" test ! -s "$TMP/forbid/fake.log"
check "retry: metrics drained 1, pending 0" \
	test "$(metric "$TMP/forbid/prom" cmax_health_node_drained) $(metric "$TMP/forbid/prom" 'cmax_health_actions_pending{action="drain"}')" = "1 0"
check "retry: the pods listed when the cordon was refused are kept (2, listed once)" \
	test "$(metric "$TMP/forbid/prom" cmax_health_affected_jobs) $(grep -c '^cmax_health_affected_job_info{job_id="team-a/train-llm-0",user="team-a"} 1$' "$TMP/forbid/prom/cmax_health.prom")" = "2 1"

# 8. kubectl hangs: killed at --timeout, 69
D=$TMP/hang/cmd/kubectl
rec "$D/1-get" "$TMP/n.json" get node gpu1 -o json
: >"$D/1-get/hang"
rec "$D/2-pods" "$TMP/pods.json" "${PODS[@]}"
run hang "$X79" --timeout 1
check "kubectl hangs: exit 69" test "$(cat "$TMP/hang/rc")" = 69
check "kubectl hangs: error says it timed out" sh -c "$PY -c \"import json,sys; d=json.load(open('$TMP/hang/out')); sys.exit('timed out' not in d['error'])\""

# 9. report-only, no kubectl anywhere: the three commands it would run, in order
mkdir -p "$TMP/ro/cmd"
run ro "$X79" --report-only
check "report-only --k8s without kubectl: exit 1, would_drain" \
	test "$(cat "$TMP/ro/rc") $(jq_ "$TMP/ro/out" 'd["node_action"]["decision"]')" = "1 would_drain"
check "report-only --k8s: taint, cordon, patch, all planned" \
	test "$(jq_ "$TMP/ro/out" '" ".join(c["command"].split()[1] for c in d["node_action"]["commands"] if c.get("planned"))')" = "taint cordon patch"
check "report-only --k8s without kubectl: the jobs are unknown (kubectl not found), not 0" \
	test "$(jq_ "$TMP/ro/out" 'str(d["affected_jobs"]["count"])+" "+str("kubectl" in d["affected_jobs"]["error"] and "not found" in d["affected_jobs"]["error"])')" = "None True"

# 10. --journal that cannot be read (systemd 252, no journal on the host)
jrun() { # name, extra args: a pass over the journal through the fake journalctl
	local n=$1; shift
	mkdir -p "$TMP/$n/cmd" "$TMP/$n/prom"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/$n/cmd" "$BUILD/fakecmd" "$TMP/$n/bin" >/dev/null
	: >"$TMP/$n/fake.log"
	env -i PATH="$TMP/$n/bin" CMAX_NOW=$NOW CMAX_FAKE_DIR="$TMP/$n/cmd" CMAX_FAKE_LOG="$TMP/$n/fake.log" \
		CMAX_DATADIR="$SRCDIR/data" "$CMAX" health check --journal --k8s --node gpu1 --report-only \
		--state "$TMP/$n/state.json" --textfile "$TMP/$n/prom" --json "$@" >"$TMP/$n/out" 2>"$TMP/$n/err"
	echo $? >"$TMP/$n/rc"
}
JFIRST=(-k -o short-iso --no-pager --show-cursor -n 1)
jrun jmissing
check "--journal, no journalctl: exit 66, source_up 0" \
	test "$(cat "$TMP/jmissing/rc") $(metric "$TMP/jmissing/prom" cmax_health_source_up)" = "66 0"
check "--journal, no journalctl: error says so" grep -q 'journalctl.*not found on PATH' "$TMP/jmissing/err"
D=$TMP/jnofiles/cmd/journalctl
rec "$D/1-first" "" "${JFIRST[@]}"
echo "-- No entries --" >"$D/1-first/stdout"; echo "No journal files were found." >"$D/1-first/stderr"; echo 1 >"$D/1-first/exit"
jrun jnofiles
check "--journal, no journal files (exit 1): exit 66 with journalctl's reason" \
	sh -c "[ \$(cat $TMP/jnofiles/rc) = 66 ] && grep -q 'No journal files were found' $TMP/jnofiles/err && [ ! -s $TMP/jnofiles/fake.log ]"
D=$TMP/jnokern/cmd/journalctl
rec "$D/1-first" "" "${JFIRST[@]}"
echo "-- No entries --" >"$D/1-first/stdout"
jrun jnokern
check "--journal without a single kernel message this boot: exit 66 (rc $(cat "$TMP/jnokern/rc"))" \
	sh -c "[ \$(cat $TMP/jnokern/rc) = 66 ] && grep -q 'journald is not collecting the kernel log' $TMP/jnokern/err"
# a journal that works: the first pass takes the cursor; the next reads after it
D=$TMP/jok/cmd/journalctl
rec "$D/1-first" "" "${JFIRST[@]}"
printf '%s\n' "2026-11-30T04:59:00+0000 gpu1 kernel: eth0: link up" "-- cursor: s=abc;i=1f" >"$D/1-first/stdout"
jrun jok
check "--journal works: first pass healthy, position taken" test "$(cat "$TMP/jok/rc") $(metric "$TMP/jok/prom" cmax_health_source_up)" = "0 1"
rec "$D/2-next" "" -k -o short-iso --no-pager --show-cursor --after-cursor=s=abc\;i=1f
printf '%s\n' "2026-11-30T05:00:00+0000 gpu1 kernel: $X79" "-- cursor: s=abc;i=20" >"$D/2-next/stdout"
jrun jok
check "--journal: the next pass reads after the cursor and reports the 79" \
	test "$(cat "$TMP/jok/rc") $(jq_ "$TMP/jok/out" 'd["node_action"]["decision"]')" = "1 would_drain"
check "--journal: only recorded journalctl calls" test ! -s "$TMP/jok/fake.log"

# 11. --help and docs/health.md say the same: every option, every exit code
"$CMAX" health --help >"$TMP/help"
missing=""
for o in $(grep -oE -- '--[a-z][a-z-]*' "$TMP/help" | sort -u); do
	grep -q -- "\`$o" "$SRCDIR/docs/health.md" || missing="$missing $o"
done
check "every option in cmax health --help is in docs/health.md${missing:+ (missing:$missing)}" test -z "$missing"
extra=""
for o in $(grep -oE -- '`--[a-z][a-z-]*' "$SRCDIR/docs/health.md" | tr -d '`' | sort -u); do
	grep -q -- "$o" "$TMP/help" || extra="$extra $o"
done
check "every option in docs/health.md is in --help${extra:+ (extra:$extra)}" test -z "$extra"
sed -n '/^Exit status:/,$p' "$TMP/help" | grep -oE '(^|[ ;(])[0-9]+ [a-z]' | grep -oE '[0-9]+' | sort -u >"$TMP/codes_help"
sed -n '/^## Exit status/,/^## /p' "$SRCDIR/docs/health.md" | grep -oE '^\| [0-9]+ \|' | grep -oE '[0-9]+' | sort -u >"$TMP/codes_doc"
check "exit codes in cmax health --help and docs/health.md agree ($(tr '\n' ' ' <"$TMP/codes_doc"))" cmp -s "$TMP/codes_help" "$TMP/codes_doc"
done_testing
