#!/usr/bin/env bash
# `cmax audit --k8s` against recorded kubectl responses: no Kubernetes API
# server can run on a CI machine, so each cluster profile under
# tests/fixtures/k8s/ is a set of `kubectl get -o json` answers replayed by
# tests/fakecmd (the only kubectl on PATH). These are contract tests of the
# collector and the cluster-scope checks against real API shapes, not tests
# of Kubernetes. Each profile's `expect` names the status every k8s check
# must reach; secrets planted in the responses must never reach the output.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
FX=$SRCDIR/tests/fixtures/k8s
PY=${PYTHON:-/usr/bin/python3}

run_k8s() { # profile outdir [cmax args...]
	local p=$1 out=$2; shift 2
	local pd=$FX/$p
	mkdir -p "$out/bin"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$pd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	: >"$out/fake.log"
	(
		cd "$pd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
			KUBECONFIG="$pd/kubeconfig" CMAX_FAKE_DIR="$pd/cmd" CMAX_FAKE_LOG="$out/fake.log" \
			CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --k8s --sysroot root "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
}

# The --active probes (src/checks/probes.def) SKIP here without --active;
# tests/cli/t-k8s-probes.sh grades them.
PROBES=$(grep -o '^PROBE("[^"]*"' "$SRCDIR/src/checks/probes.def" | cut -d'"' -f2 | tr '\n' ' ')
export PROBES
statuses() { # results.json -> "id status" lines for the read-only k8s checks
	"$PY" -c 'import json,os,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if ".k8s-" in r["id"] and r["id"] not in os.environ["PROBES"].split(): print(r["id"], r["status"])' "$1"
}

all_json=()
for pd in "$FX"/*/; do
	p=$(basename "$pd")
	out=$TMP/$p
	run_k8s "$p" "$out" --yes --json --output-dir "$out/run"
	rc=$(cat "$out/rc")
	check "$p: audit --k8s exits 0 (got $rc)" test "$rc" = 0
	[ "$rc" = 0 ] || diag <"$out/stderr"
	check "$p: no unrecorded kubectl invocation" test ! -s "$out/fake.log"
	[ -s "$out/fake.log" ] && diag <"$out/fake.log"
	if "$PY" "$SRCDIR/tests/contract/validate.py" "$out/stdout" >"$out/contract" 2>&1; then
		ok "$p: --json output satisfies the contract"
	else
		not_ok "$p: --json output satisfies the contract"; diag <"$out/contract"
	fi
	statuses "$out/stdout" >"$out/got"
	while read -r id want; do
		got=$(awk -v id="$id" '$1 == id { print $2 }' "$out/got")
		if [ "$got" = "$want" ]; then
			ok "$p: $id is $want"
		else
			not_ok "$p: $id is $want (got ${got:-no row})"
			"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"] == sys.argv[2]: print(r["summary"])' "$out/stdout" "$id" | diag
		fi
	done <"$pd/expect"
	if grep -rqs -e cmax-canary "$out/stdout" "$out/run"; then
		not_ok "$p: no planted secret in the report or the run directory"
		grep -rls cmax-canary "$out/stdout" "$out/run" | diag
	else
		ok "$p: no planted secret in the report or the run directory"
	fi
	all_json+=("$out/stdout")
done

# Every k8s check PASSes in some profile and FAILs or WARNs in another.
"$PY" - "${all_json[@]}" >"$TMP/cov" 2>&1 <<'PY'
import json, os, sys
seen = {}
for p in sys.argv[1:]:
    for r in json.load(open(p))["results"]:
        if ".k8s-" in r["id"] and r["id"] not in os.environ["PROBES"].split():
            seen.setdefault(r["id"], set()).add(r["status"])
bad = [f"{i}: {sorted(s)}" for i, s in sorted(seen.items()) if "PASS" not in s or not ({"FAIL", "WARN"} & s)]
print("\n".join(bad))
sys.exit(1 if bad or len(seen) < 11 else 0)
PY
check "every k8s check has a PASS and a FAIL-or-WARN profile" test $? -eq 0 || diag <"$TMP/cov"

# The RDMA classifier names each pattern in its own profile.
for pat in sriov-host-device:sriov_host_device sriov-legacy:sriov_legacy sriov-ib:sriov_ib ovs-offload:ovs_offload \
	ib:rdma_ib roce:rdma_roce efa:efa doks-fabric:doks_fabric gke-dranet:gke_dranet healthy:rdma_shared_device; do
	prof=${pat%%:*} want=${pat#*:}
	[ "$prof" = healthy ] || prof=rdma-$prof
	got=$("$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"] == "networking.k8s-rdma-pattern": print(" ".join(p["pattern"] for p in r["observed"]["patterns"]))' "$TMP/$prof/stdout")
	check "$prof: RDMA pattern is $want (got '$got')" test "$got" = "$want"
done

# Named in the verdicts, not just counted.
grep -q 'alice@example.com' "$TMP/rbac-nodes-proxy/stdout" && grep -q 'monitoring/prometheus' "$TMP/rbac-nodes-proxy/stdout"
check "rbac-nodes-proxy: both non-system subjects are named" test $? -eq 0
grep -q 'gb200-n01 (nvidia.com/gpu=present:NoSchedule)' "$TMP/dcgm-no-toleration/stdout"
check "dcgm-no-toleration: the blocked node and its taint are named" test $? -eq 0
grep -q 'accepted but not enforced' "$TMP/rbac-nodes-proxy/stdout"
check "flannel: NetworkPolicies accepted but not enforced" test $? -eq 0

# kubectl gone: the cluster checks SKIP with the reason, never PASS.
out=$TMP/nokubectl
mkdir -p "$out/bin"
(cd "$FX/healthy" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC CMAX_DATADIR="$SRCDIR/data" \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	"$CMAX" audit --k8s --yes --json --sysroot root --output-dir "$out/run") >"$out/stdout" 2>"$out/stderr"
statuses "$out/stdout" >"$out/got"
check "no kubectl: every k8s check SKIPs" test "$(awk '$2 != "SKIP"' "$out/got" | wc -l)" -eq 0 -a -s "$out/got"
grep -q 'kubectl is not on PATH' "$out/stdout"
check "no kubectl: the reason is given" test $? -eq 0
# The API server does not answer, or refuses the credentials: ERROR or SKIP
# with kubectl's own words, never a verdict.
api_fails() { # name, status wanted, kubectl's stderr line
	local name=$1 want=$2 msg=$3
	local pdir=$TMP/profiles/$name
	mkdir -p "$TMP/profiles"
	cp -r "$FX/healthy" "$pdir"
	local rec
	rec=$(grep -lx nodes "$pdir"/cmd/kubectl/*/argv | head -1)
	rec=${rec%/argv}
	: >"$rec/stdout"
	echo "$msg" >"$rec/stderr"
	echo 1 >"$rec/exit"
	FX=$TMP/profiles run_k8s "$name" "$TMP/$name" --yes --json --output-dir "$TMP/$name/run"
	statuses "$TMP/$name/stdout" >"$TMP/$name/got"
	check "$name: every k8s check is $want" test -s "$TMP/$name/got" -a "$(awk -v w="$want" '$2 != w' "$TMP/$name/got" | wc -l)" -eq 0
	grep -qF "${msg%% (*}" "$TMP/$name/stdout"
	check "$name: kubectl's reason reaches the report" test $? -eq 0
}
api_fails unreachable ERROR "Unable to connect to the server: dial tcp 203.0.113.10:6443: i/o timeout"
api_fails unauthorized SKIP "error: You must be logged in to the server (Unauthorized)"

# An empty path is never meant: --sysroot "" used to audit the live host
# instead of the tree. Each empty path option is a usage error (64), named
# on stderr, before anything runs (no kubectl call, no run directory).
empty_opt() { # option [more args...]
	local opt=$1 out=$TMP/empty${1//-/_}; shift
	run_k8s healthy "$out" --yes --json --output-dir "$out/run" "$opt" "" "$@"
	check "$opt \"\": exit 64 (got $(cat "$out/rc"))" test "$(cat "$out/rc")" = 64
	check "$opt \"\": stderr names the option" grep -q -- "$opt needs a value, not an empty string" "$out/stderr"
	check "$opt \"\": nothing was run or written" test ! -e "$out/run" -a ! -s "$out/stdout"
}
empty_opt --sysroot
empty_opt --output-dir
empty_opt --minimums
empty_opt --kubeconfig
empty_opt --context
empty_opt --node-image
empty_opt --node-cmd
empty_opt --output-file --dry-run -o json
done_testing
