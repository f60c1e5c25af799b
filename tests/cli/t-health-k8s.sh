#!/usr/bin/env bash
# cmax health --k8s: the exact kubectl commands (fake kubectl that answers
# only the recorded argv, so any other command fails the test): cordon, the
# cmax.io/xid taint and a node condition for an Xid 79; nothing but a read
# for a node someone else cordoned; nothing at all for an Xid 13.
. "$(dirname "$0")/../lib/tap.sh"
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
jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# 1. schedulable node, Xid 79: cordon + taint + condition, exactly these argv
C=$TMP/cordon/cmd/kubectl
node_json false '[]' >"$TMP/n.json"
rec "$C/1-get" "$TMP/n.json" get node gpu1 -o json
rec "$C/2-cordon" "" cordon gpu1
rec "$C/3-taint" "" taint node gpu1 cmax.io/xid=79:NoSchedule --overwrite
rec "$C/4-patch" "" patch node gpu1 --subresource=status --type=strategic -p \
	'{"status":{"conditions":[{"lastHeartbeatTime":"2026-11-30T05:00:00Z","lastTransitionTime":"2026-11-30T05:00:00Z","message":"cmax: Xid 79 on 0000:5a:00 at 2026-11-30T05:00:00Z (reboot)","reason":"Xid79","status":"True","type":"CmaxGpuXid"}]}}'
run cordon "$X79"
check "Xid 79: exit 1 (rc $(cat "$TMP/cordon/rc"))" test "$(cat "$TMP/cordon/rc")" = 1
check "Xid 79: every kubectl call was the recorded one" test ! -s "$TMP/cordon/fake.log" || diag <"$TMP/cordon/fake.log"
check "Xid 79: decision drain" test "$(jq_ "$TMP/cordon/out" 'd["node_action"]["decision"]')" = drain
check "Xid 79: four commands ran" test "$(jq_ "$TMP/cordon/out" 'len(d["node_action"]["commands"])')" = 4

# 2. dry run: the node is read, the three changes are only planned
run cordon "$X79" --dry-run --state "$TMP/dry.json"
check "dry run: only the read ran" test ! -s "$TMP/cordon/fake.log"
check "dry run: three planned commands" test "$(jq_ "$TMP/cordon/out" 'sum(1 for c in d["node_action"]["commands"] if c.get("planned"))')" = 3

# 3. cordoned by someone else: left alone (only the read is recorded)
F=$TMP/foreign/cmd/kubectl
node_json true '[{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}]' >"$TMP/f.json"
rec "$F/1-get" "$TMP/f.json" get node gpu1 -o json
run foreign "$X79"
check "foreign cordon: no other kubectl call" test ! -s "$TMP/foreign/fake.log"
check "foreign cordon: decision foreign_drain" test "$(jq_ "$TMP/foreign/out" 'd["node_action"]["decision"]')" = foreign_drain

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
done_testing
