#!/usr/bin/env bash
# `cmax audit --k8s --active`: the StorageClass (PVC) and NetworkPolicy
# probes against recorded kubectl responses (tests/fixtures/k8s/probes.py,
# through gen.py): no Kubernetes API server can run here, so tests/fakecmd
# replays what kubectl prints, behind a wrapper that logs every call. These
# are contract tests of the probes' kubectl conversation and verdicts, not
# tests of Kubernetes. The recordings name the run directory @RUNDIR@ (the
# manifests are created from it); each run gets a copy with its own.
#  - every verdict: PASS (claims read back, policy enforced), FAIL (claim
#    Pending with ProvisioningFailed; pod in ContainerCreating with
#    FailedAttachVolume/FailedMount; read-back mismatch; NetworkPolicy not
#    enforced), ERROR (baseline connection failed), SKIP (no --active, no
#    permission, no StorageClass);
#  - without --active no create/delete/logs call is made, and none names a
#    probe namespace (the read-only collector's own `auth can-i` questions
#    are no probe);
#  - the clean-up `kubectl delete ... -l cmax.run-id=...` runs after success,
#    after failure and after SIGINT in the middle of a probe;
#  - `--dry-run --active -o json` lists both probes as changing state.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
FX=$SRCDIR/tests/fixtures/k8s
PY=${PYTHON:-/usr/bin/python3}
PVC=storage.k8s-pvc-probe
NP=networking.k8s-networkpolicy-probe

# The stuck cases end at the probe's budget: a data directory whose budgets
# are 3 s keeps the test short (the shipped ones are 150 s).
cp -r "$SRCDIR/data" "$TMP/data"
"$PY" - "$TMP/data/thresholds.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("storage.k8s-pvc-probe", "networking.k8s-networkpolicy-probe"):
    d["probes"]["budget_s"][k] = 3
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY

prep() { # profile copy-name: $TMP/prof/<copy-name>, @RUNDIR@ = $TMP/<copy-name>/run
	local src=$FX/$1 pd=$TMP/prof/$2
	mkdir -p "$TMP/prof"
	cp -r "$src" "$pd"
	grep -rl '@RUNDIR@' "$pd/cmd" | while read -r f; do sed -i "s|@RUNDIR@|$TMP/$2/run|g" "$f"; done
}

rec_of() { # copy-name, argv words (space-joined, after --request-timeout): that recording's directory
	local f
	for f in "$TMP/prof/$1"/cmd/kubectl/*/argv; do
		if [ "$(tail -n +2 "$f" | tr '\n' ' ' | sed 's/ $//')" = "$2" ]; then
			dirname "$f"
			return 0
		fi
	done
	return 1
}

setup_run() { # copy-name: bin dir with a logging kubectl in $TMP/<copy-name>
	local pd=$TMP/prof/$1 out=$TMP/$1
	mkdir -p "$out/bin" "$out/home"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$pd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	rm -f "$out/bin/kubectl"
	printf '#!/bin/bash\nprintf "%%s\\n" "$*" >>"%s/calls"\nexec -a kubectl "%s/fakecmd" "$@"\n' "$out" "$BUILD" \
		>"$out/bin/kubectl"
	chmod +x "$out/bin/kubectl"
	: >"$out/fake.log"
	: >"$out/calls"
}

run_probe() { # copy-name [cmax args...]
	local name=$1 pd=$TMP/prof/$1 out=$TMP/$1
	shift
	setup_run "$name"
	(
		cd "$pd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
			KUBECONFIG="$pd/kubeconfig" CMAX_FAKE_DIR="$pd/cmd" CMAX_FAKE_LOG="$out/fake.log" \
			CMAX_DATADIR="$TMP/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --k8s --sysroot root --yes --json --output-dir "$out/run" "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
}

row() { # copy-name id field -> the field of that result row
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"] == sys.argv[2]: print(r.get(sys.argv[3]) or "")' "$TMP/$1/stdout" "$2" "$3"
}

verdict() { # copy-name id status [summary words...]
	local name=$1 id=$2 want=$3 got sum w
	shift 3
	got=$(row "$name" "$id" status)
	sum=$(row "$name" "$id" summary)
	if [ "$got" != "$want" ]; then
		not_ok "$name: $id is $want (got ${got:-no row})"
		echo "$sum" | diag
		return
	fi
	for w in "$@"; do
		case $sum in
		*"$w"*) ;;
		*) not_ok "$name: $id is $want and says '$w'"; echo "$sum" | diag; return ;;
		esac
	done
	ok "$name: $id is $want${*:+ (says: $*)}"
}

cleaned() { # copy-name probe: both label deletes were made, after the probe's last create
	local out=$TMP/$1 sel="cmax.run-id=t1,cmax.probe=$2" last_create del_objs del_ns
	last_create=$(grep -n "create -f .*k8s-probe-$2-" "$out/calls" | tail -1 | cut -d: -f1)
	del_objs=$(grep -n -- "delete [a-z,]* -n cmax-$2-t1 -l $sel --ignore-not-found --wait=false" "$out/calls" | cut -d: -f1)
	del_ns=$(grep -n -- "delete namespace -l $sel --ignore-not-found --wait=false" "$out/calls" | cut -d: -f1)
	if [ -n "$last_create" ] && [ -n "$del_objs" ] && [ -n "$del_ns" ] && [ "$del_objs" -gt "$last_create" ] &&
		[ "$del_ns" -gt "$del_objs" ]; then
		ok "$1: the $2 probe's objects, then its namespace, are deleted by label $sel"
	else
		not_ok "$1: the $2 probe's objects, then its namespace, are deleted by label $sel"
		diag <"$out/calls"
	fi
}

no_unrecorded() { # copy-name
	check "$1: no unrecorded kubectl invocation" test ! -s "$TMP/$1/fake.log"
	[ -s "$TMP/$1/fake.log" ] && diag <"$TMP/$1/fake.log"
}

# ---- healthy: both probes PASS, everything labelled, manifests kept ----
prep healthy healthy
run_probe healthy --active
check "healthy: audit --k8s --active exits 0 (got $(cat "$TMP/healthy/rc"))" test "$(cat "$TMP/healthy/rc")" = 0
no_unrecorded healthy
verdict healthy $PVC PASS "ReadWriteOnce claim on ceph-block" "ReadWriteMany claim on shared-nfs" "read back"
verdict healthy $NP PASS "deny-all ingress enforced" "BLOCKED"
cleaned healthy pvc
cleaned healthy netpol
if "$PY" "$SRCDIR/tests/contract/validate.py" "$TMP/healthy/stdout" >"$TMP/healthy/contract" 2>&1; then
	ok "healthy: --json output satisfies the contract"
else
	not_ok "healthy: --json output satisfies the contract"; diag <"$TMP/healthy/contract"
fi
"$PY" - "$TMP/healthy/run" <<'PY' >"$TMP/healthy/labels" 2>&1
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "k8s-probe-*.json")))
bad, n = [], 0
for f in files:
    d = json.load(open(f))
    if os.stat(f).st_mode & 0o077:
        bad.append("%s: readable by others" % f)
    for it in d.get("items", [d]):
        n += 1
        l = it["metadata"].get("labels", {})
        if l.get("cmax.run-id") != "t1" or l.get("app.kubernetes.io/managed-by") != "cmax" or "cmax.probe" not in l:
            bad.append("%s %s: labels %s" % (it["kind"], it["metadata"]["name"], l))
        ns = it["metadata"].get("namespace", it["metadata"]["name"])
        if not ns.startswith("cmax-") or not ns.endswith("-t1"):
            bad.append("%s %s: namespace %s" % (it["kind"], it["metadata"]["name"], ns))
        if it["kind"] == "Pod" and not it["spec"].get("activeDeadlineSeconds"):
            bad.append("pod %s without activeDeadlineSeconds" % it["metadata"]["name"])
        if it["kind"] == "PersistentVolumeClaim" and it["spec"]["resources"]["requests"]["storage"] != "1Gi":
            bad.append("claim %s is not 1Gi" % it["metadata"]["name"])
print("\n".join(bad))
sys.exit(1 if bad or len(files) != 7 or n < 10 else 0)
PY
check "healthy: the 7 manifests in the run directory label every object with the run id, in the probe's own namespace" \
	test $? -eq 0 || diag <"$TMP/healthy/labels"
grep -q 'kubectl delete namespace -l cmax.run-id=t1,cmax.probe=pvc' "$TMP/healthy/stderr"
check "healthy: stderr names the delete command before anything is created" test $? -eq 0
grep -q '"registry.k8s.io/e2e-test-images/busybox:1.36.1-1"' "$TMP/healthy/run/k8s-probe-netpol-server.json"
check "healthy: the default probe image" test $? -eq 0

# ---- without --active: no probe runs, nothing is created or deleted ----
prep healthy passive
run_probe passive
verdict passive $PVC SKIP "--active"
verdict passive $NP SKIP "--active"
PROBE_CALL='^--request-timeout=10s (create|delete|logs|apply|patch|label) |cmax-(pvc|netpol)-'
if grep -Eq "$PROBE_CALL" "$TMP/passive/calls"; then
	not_ok "passive: no create, delete or logs kubectl call, none in a probe namespace, without --active"
	grep -E "$PROBE_CALL" "$TMP/passive/calls" | diag
else
	ok "passive: no create, delete or logs kubectl call, none in a probe namespace, without --active"
fi
check "passive: no probe manifest is written" test -z "$(ls "$TMP/passive/run" | grep k8s-probe)"

# ---- flannel: the policy is accepted, the client still connects ----
prep rbac-nodes-proxy flannel
run_probe flannel --active
no_unrecorded flannel
verdict flannel $NP FAIL "NetworkPolicy accepted but not enforced"
verdict flannel $PVC PASS
cleaned flannel netpol

# ---- a claim stuck Pending; a probe whose baseline fails ----
prep probe-pvc-pending pending
run_probe pending --active
no_unrecorded pending
verdict pending $PVC FAIL "ReadWriteOnce claim on ceph-block (rbd.csi.ceph.com) stuck Pending" "ProvisioningFailed" \
	"context deadline exceeded"
case $(row pending $PVC summary) in *shared-nfs*) not_ok "pending: the claim that bound is not named as failed" ;;
*) ok "pending: the claim that bound is not named as failed" ;; esac
verdict pending $NP ERROR "broken, not a verdict"
cleaned pending pvc
cleaned pending netpol

# ---- a pod stuck in ContainerCreating; a read-back mismatch ----
prep probe-pvc-mount mount
run_probe mount --active
no_unrecorded mount
verdict mount $PVC FAIL "stuck ContainerCreating" "FailedAttachVolume" "FailedMount" "read back 'cmax-t0-rwx'"
verdict mount $NP PASS
cleaned mount pvc

# ---- no permission to create PVCs: SKIP with the reason, nothing created ----
prep healthy denied
d=$(rec_of denied "auth can-i create persistentvolumeclaims -n cmax-pvc-t1") && {
	echo no >"$d/stdout"
	echo 1 >"$d/exit"
}
run_probe denied --active --probe-image registry.internal/mirror/busybox:1.36.1-1
verdict denied $PVC SKIP "may not create persistentvolumeclaims in namespace cmax-pvc-t1"
verdict denied $NP PASS
if grep -q 'k8s-probe-pvc-' "$TMP/denied/calls" || grep -q 'cmax.probe=pvc' "$TMP/denied/calls"; then
	not_ok "denied: nothing of the PVC probe is created or deleted"; diag <"$TMP/denied/calls"
else
	ok "denied: nothing of the PVC probe is created or deleted"
fi
grep -q '"registry.internal/mirror/busybox:1.36.1-1"' "$TMP/denied/run/k8s-probe-netpol-server.json"
check "denied: --probe-image is the image of the probe pods" test $? -eq 0
"$CMAX" audit --local --probe-image x --dry-run >/dev/null 2>"$TMP/pi.err"
check "--probe-image without --k8s is a usage error (exit 64)" test $? -eq 64
grep -q -- '--probe-image goes with --k8s' "$TMP/pi.err"
check "--probe-image without --k8s: stderr names the option" test $? -eq 0

# ---- a tenant who may not create namespaces: its own namespace, no other ----
prep probe-tenant-ns tenant
run_probe tenant --active
no_unrecorded tenant
verdict tenant $PVC PASS
verdict tenant $NP PASS
grep -q -- '^--request-timeout=10s delete pods,persistentvolumeclaims -n ml-team -l cmax.run-id=t1,cmax.probe=pvc ' \
	"$TMP/tenant/calls" &&
	grep -q -- '^--request-timeout=10s delete pods,networkpolicies -n ml-team -l cmax.run-id=t1,cmax.probe=netpol ' \
		"$TMP/tenant/calls"
check "tenant: both probes' objects are deleted by label in the context's namespace ml-team" test $? -eq 0
if grep -Eq 'namespace\.json|delete namespace' "$TMP/tenant/calls"; then
	not_ok "tenant: no namespace is created or deleted"; grep -E 'namespace' "$TMP/tenant/calls" | diag
else
	ok "tenant: no namespace is created or deleted"
fi
"$PY" -c 'import json,sys
p = json.load(open(sys.argv[1]))
sys.exit(0 if p["spec"]["podSelector"] == {"matchLabels": {"cmax.run-id": "t1", "cmax.probe-role": "server"}} else 1)' \
	"$TMP/tenant/run/k8s-probe-netpol-policy.json"
check "tenant: the deny-all policy selects this run's server only" test $? -eq 0

# ---- no StorageClass to probe: SKIP ----
prep no-storageclass nosc
run_probe nosc --active
verdict nosc $PVC SKIP "no default and no ReadWriteMany-capable StorageClass"

# ---- SIGINT while the NetworkPolicy probe (the first: networking comes
# before storage) waits for its server: its clean-up still runs, and the
# PVC probe starts nothing ----
prep healthy sigint
d=$(rec_of sigint "get pod cmax-t1-server -n cmax-netpol-t1 -o json")
echo 30000 >"$d/sleep_ms"
setup_run sigint
out=$TMP/sigint pd=$TMP/prof/sigint
(
	cd "$pd" && exec env -i --default-signal=INT HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
		KUBECONFIG="$pd/kubeconfig" CMAX_FAKE_DIR="$pd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$TMP/data" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" audit --k8s --sysroot root --yes --json --active --output-dir "$out/run"
) >"$out/stdout" 2>"$out/stderr" &
apid=$!
for _ in $(seq 200); do
	grep -q 'get pod cmax-t1-server' "$out/calls" && break
	sleep 0.05
done
sleep 0.2
kill -INT "$apid"
for _ in $(seq 200); do
	kill -0 "$apid" 2>/dev/null || break
	sleep 0.05
done
kill -KILL "$apid" 2>/dev/null
wait "$apid"
src=$?
check "sigint: the audit exits 130 (got $src)" test "$src" = 130
cleaned sigint netpol
if grep -Eq 'k8s-probe-netpol-client|cmax-pvc-' "$out/calls"; then
	not_ok "sigint: nothing more is created after the signal"; diag <"$out/calls"
else
	ok "sigint: nothing more is created after the signal"
fi
verdict sigint $NP ERROR "interrupted"
grep -q '"partial": true' "$out/run/audit.results.json"
check "sigint: the report is marked partial" test $? -eq 0

# ---- --dry-run --active: both probes listed as changing state, nothing run ----
prep healthy dry
setup_run dry
(cd "$TMP/prof/dry" && env -i HOME="$TMP/dry/home" PATH="$TMP/dry/bin" TZ=UTC KUBECONFIG="$TMP/prof/dry/kubeconfig" \
	CMAX_FAKE_DIR="$TMP/prof/dry/cmd" CMAX_FAKE_LOG="$TMP/dry/fake.log" CMAX_DATADIR="$SRCDIR/data" \
	"$CMAX" audit --k8s --sysroot root --dry-run --active -o json) >"$TMP/dry/stdout" 2>"$TMP/dry/stderr"
"$PY" - "$TMP/dry/stdout" "$PVC" "$NP" <<'PY' >"$TMP/dry/check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for cid in sys.argv[2:]:
    c = [x for x in d["checks"] if x["id"] == cid]
    if not c or c[0]["changes_state"] is not True:
        bad.append("%s: not listed with changes_state true" % cid)
    p = [x for x in d["state_changing_probes"] if x["id"] == cid]
    if not p or not p[0].get("would_run"):
        bad.append("%s: not among the state-changing probes that would run" % cid)
text = json.dumps(d)
for words in ("cmax-pvc-<run id>", "cmax-netpol-<run id>", "deny-all-ingress NetworkPolicy", "cmax.run-id=<run id>"):
    if words not in text:
        bad.append("the plan does not say what changes: %r" % words)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "dry-run --active: both probes are listed with changes_state and what they change" test $? -eq 0 ||
	diag <"$TMP/dry/check"
if grep -Eq "$PROBE_CALL" "$TMP/dry/calls"; then
	not_ok "dry-run --active: no probe kubectl call"; grep -E "$PROBE_CALL" "$TMP/dry/calls" | diag
else
	ok "dry-run --active: no probe kubectl call"
fi
done_testing
