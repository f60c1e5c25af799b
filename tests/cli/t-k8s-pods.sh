#!/usr/bin/env bash
# Per-node collection on Kubernetes: one privileged collector pod per GPU
# node, against recorded kubectl answers (tests/fixtures/k8s-pods/ on top of
# the healthy cluster profile of tests/fixtures/k8s/). The collector pods'
# logs are real `cmax node-collect` output of fixture hosts (gen.sh). The
# kubectl on PATH is a wrapper that logs every call and keeps a copy of
# every manifest handed to `create -f`, then runs fakecmd, so the test can
# assert that every create is followed by its delete: on success, on a node
# whose image cannot be pulled, and on SIGINT/SIGTERM while cmax waits.
# Several runs may share the namespace cmax-audit: the cleanup deletes this
# run's pods by its run label only, and the namespace only when this run
# created it and no other pod is left in it (`kubectl get pods -o name`
# answers "No resources found" on stderr, nothing on stdout, when empty).
# The manifests are kept in the run directory (mode 0600); TMPDIR is an
# empty directory that must stay empty.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
PROF=$SRCDIR/tests/fixtures/k8s/healthy
PODS=$SRCDIR/tests/fixtures/k8s-pods
IMAGE=registry.example.internal/cmax:0.1.0
R=--request-timeout=10s
checkd() { # description, file to show on failure, command...
	local d=$1 f=$2; shift 2
	if "$@"; then ok "$d"; else not_ok "$d"; diag <"$f"; fi
}

# The recordings: the cluster profile and the pod recordings; the create
# calls are added per run (their argv holds the run directory).
FX=$TMP/fx
mkdir -p "$FX/cmd/kubectl" "$TMP/tmp" "$TMP/saved"
cp -r "$PROF"/cmd/kubectl/* "$PODS"/cmd/kubectl/* "$FX/cmd/kubectl/"
add_creates() { # outdir: `create -f` of its run directory's manifests succeeds
	local f d
	for f in namespace pods; do
		d=$FX/cmd/kubectl/create-${1##*/}-$f
		[ -e "$d" ] && continue # a test's own answer (refused, AlreadyExists)
		mkdir -p "$d"
		printf '%s\n' $R create -f "$1/run/k8s-$f.json" -o name >"$d/argv"
		echo 0 >"$d/exit"
	done
}
tmpdir_empty() { test -z "$(ls -A "$TMP/tmp")"; }
# A kubeconfig with a (fake) credential: it must reach no manifest.
KCFG=$TMP/kubeconfig
sed 's/user: {}/user: {token: cmax-planted-bearer-7f3a}/' "$PROF/kubeconfig" >"$KCFG"
BIN=$TMP/bin
mkdir -p "$BIN"
cat >"$BIN/kubectl" <<EOF
#!/bin/bash
printf '%s\n' "\$*" >>"$TMP/kubectl.log"
prev=
for a in "\$@"; do
	# builtins only: PATH holds nothing but this directory
	[ "\$prev" = -f ] && printf '%s\n' "\$(<"\$a")" >"$TMP/saved/\${a##*/}"
	prev=\$a
done
exec -a kubectl "$BUILD/fakecmd" "\$@"
EOF
chmod +x "$BIN/kubectl"

run_pods() { # outdir run-id [cmax args...]; runs in the foreground
	local out=$1 id=$2; shift 2
	mkdir -p "$out"
	add_creates "$out"
	: >"$TMP/kubectl.log"
	: >"$out/fake.log"
	(
		# the profile's env first: its own CMAX_RUN_ID (for the probe recordings) gives way to the run's
		# CMAX_HOME: the results store goes there, not under TMPDIR (whose emptiness is checked)
		cd "$PROF" && exec env -i HOME="$out/home" CMAX_HOME="$out/cmax-home" PATH="$BIN" TZ=UTC TMPDIR="$TMP/tmp" \
			$(grep -v '^#' env) CMAX_RUN_ID="$id" KUBECONFIG="$KCFG" CMAX_FAKE_DIR="$FX/cmd" \
			CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --k8s --sysroot root "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
	cp "$TMP/kubectl.log" "$out/kubectl.log"
}

# Line number of the first kubectl call matching a pattern (0: none).
call_at() { grep -n -m1 -e "$2" "$1" | cut -d: -f1 | grep . || echo 0; }

creates_deleted() { # out run-id: every create precedes the deletes of its objects;
	# the namespace (made by this run) goes only after a look for other pods
	local log=$1/kubectl.log id=$2
	local cp cn dp gp dn
	cp=$(call_at "$log" "create -f $1/run/k8s-pods.json")
	cn=$(call_at "$log" "create -f $1/run/k8s-namespace.json")
	dp=$(call_at "$log" "delete pods -n cmax-audit -l cmax.audit/run=$id --ignore-not-found")
	gp=$(call_at "$log" "get pods -n cmax-audit -l cmax.audit/run!=$id -o name")
	dn=$(call_at "$log" "delete namespace cmax-audit --ignore-not-found")
	[ "$cp" -gt 0 ] && [ "$cn" -gt 0 ] && [ "$cn" -lt "$cp" ] && [ "$dp" -gt "$cp" ] && [ "$gp" -gt "$dp" ] &&
		[ "$dn" -gt "$gp" ]
}
# Every pod delete selects this run's label: never all pods of the namespace.
pods_by_label_only() { # out run-id
	! grep ' delete pod' "$1/kubectl.log" | grep -qv -- "-l cmax.audit/run=$2 "
}
# The manifests handed to `create -f` are the ones kept in the run directory, mode 0600.
manifests_kept() { # out [k8s-namespace.json]
	local f
	for f in k8s-pods.json "${@:2}"; do
		[ -f "$1/run/$f" ] && [ "$(stat -c %a "$1/run/$f")" = 600 ] && cmp -s "$1/run/$f" "$TMP/saved/$f" || return 1
	done
}

# 1. The full run: three nodes answer, one cannot pull the image.
out=$TMP/run1
run_pods "$out" t1 --yes --json --exit-zero --node-image "$IMAGE" --output-dir "$out/run"
checkd "run: exits 0 (got $(cat "$out/rc"))" "$out/stderr" test "$(cat "$out/rc")" = 0
checkd "run: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
checkd "run: namespace created, pods created, pods deleted, no other pod, namespace deleted, in that order" \
	"$out/kubectl.log" creates_deleted "$out" t1
checkd "run: pods are deleted by the run label only" "$out/kubectl.log" pods_by_label_only "$out" t1
checkd "run: the manifests kubectl was given are kept in the run directory, mode 0600" "$out/kubectl.log" \
	manifests_kept "$out" k8s-namespace.json
check "run: nothing is written under TMPDIR" tmpdir_empty
# the pods run at once: stderr counts those that ended, never guesses an ETA
# before the last one (core/progress.h, PROGRESS_PARALLEL; stderr is no terminal)
checkd "run: progress: one line per node whose pod ended, 3 succeeded + 1 stuck, ETA ? until the last" "$out/stderr" \
	python3 -c '
import re,sys; l=[x for x in open(sys.argv[1]).read().splitlines() if x.startswith("cmax audit: node ")]
assert len(l)==4, l
for i,x in enumerate(l,1):
    m=re.match(r"cmax audit: node (\d)/4 (\S+) done in \d+s, (succeeded|stuck|failed) \(elapsed \d+s, ETA (\?|0s)\)$", x)
    assert m and int(m.group(1))==i and (m.group(4)=="0s")==(i==4), x
assert sorted(re.search(r", (\w+) \(", x).group(1) for x in l)==["stuck","succeeded","succeeded","succeeded"], l' "$out/stderr"
check "run: the manifests hold no credential of the kubeconfig" \
	test "$(grep -l cmax-planted-bearer "$out/run"/k8s-*.json | wc -l)" = 0
"$PY" - "$out/stdout" >"$out/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["results"]
hosts = {r.get("host") for r in rows}
bad = []
for n in ("gb200-n01", "gb200-n02", "gb200-n03"):
    if not any(r.get("host") == n and r["id"] != "orchestration.fleet-coverage" for r in rows):
        bad.append(f"no per-node rows for {n}")
cov = [r for r in rows if r["id"] == "orchestration.fleet-coverage" and r.get("host") == "gb200-n04"]
if not cov or cov[0]["status"] != "ERROR":
    bad.append("gb200-n04 has no ERROR coverage row")
elif "ImagePullBackOff" not in json.dumps(cov[0]) or "registry.example.internal" not in json.dumps(cov[0]):
    bad.append("gb200-n04's row does not give kubectl's reason: " + cov[0]["summary"])
elif "delete" not in json.dumps(cov[0].get("evidence", [])):
    bad.append("gb200-n04's evidence does not show the delete")
if "cp-0" in hosts:
    bad.append("the control-plane node (no GPU) was collected")
drift = [r for r in rows if r["id"].startswith("versions.drift-") or r["id"] == "hardware.drift-gpus"]
if len(drift) < 5:
    bad.append(f"only {len(drift)} drift rows")
if not any(r["status"] in ("FAIL", "WARN") for r in drift):
    bad.append("the planted drift (misconfig-gb200 on gb200-n03) is not found: " + str([(r["id"], r["status"]) for r in drift]))
if not any("3 of 4" in json.dumps(r) for r in drift):
    bad.append("no drift verdict says it covers 3 of 4 nodes")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
checkd "run: rows per GPU node, drift across them, the unpullable node named with kubectl's reason" "$out/py" test $? = 0
"$PY" - "$out/run/k8s-pods.json" "$IMAGE" >"$out/manifest" 2>&1 <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
bad = []
pods = l["items"]
if [p["spec"]["nodeName"] for p in pods] != ["gb200-n01", "gb200-n02", "gb200-n03", "gb200-n04"]:
    bad.append("not one pod per GPU node")
for p in pods:
    s, c = p["spec"], p["spec"]["containers"][0]
    if p["metadata"]["labels"].get("cmax.audit/run") != "t1" or p["metadata"]["namespace"] != "cmax-audit":
        bad.append("run label or namespace missing")
    if not (c["securityContext"]["privileged"] and s["hostPID"] and s["restartPolicy"] == "Never"):
        bad.append("not privileged/hostPID/Never")
    if c["image"] != sys.argv[2] or c["command"][:5] != ["cmax", "node-collect", "--sysroot", "/host", "--node-name"]:
        bad.append("image or command wrong: " + json.dumps(c["command"]))
    if c["command"][5] != s["nodeName"]:
        bad.append("--node-name is not the node")
    if s["volumes"][0]["hostPath"]["path"] != "/" or not c["volumeMounts"][0]["readOnly"]:
        bad.append("host / not mounted read-only")
    if {(t["key"], t.get("value"), t.get("effect")) for t in s["tolerations"]} != {("nvidia.com/gpu", "present", "NoSchedule")}:
        bad.append("tolerations are not the node's taints: " + json.dumps(s["tolerations"]))
    if not s.get("activeDeadlineSeconds"):
        bad.append("no activeDeadlineSeconds")
ns = json.load(open(sys.argv[1].replace("k8s-pods.json", "k8s-namespace.json")))
if ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") != "privileged":
    bad.append("namespace does not admit privileged pods")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
checkd "run: the pod manifests are pinned, privileged, read-only on /host, tolerate the node's taints" "$out/manifest" test $? = 0
grep -q "kubectl delete pods -n cmax-audit -l cmax.audit/run=t1" "$out/stderr"
check "run: the manual cleanup command is printed before anything is created" test $? = 0

# 2. No image: nothing is created, and the report says why.
out=$TMP/noimage
run_pods "$out" t1 --yes --json --exit-zero --output-dir "$out/run"
check "no image: no object created" test "$(grep -c -e ' create -f ' -e ' delete ' "$out/kubectl.log")" = 0
grep -q -- "needs --node-image IMAGE" "$out/stderr"
check "no image: the reason is given" test $? = 0

# 3. --dry-run lists the exact objects and creates none.
out=$TMP/dry
run_pods "$out" t1 --dry-run --node-image "$IMAGE"
check "dry-run: exits 0" test "$(cat "$out/rc")" = 0
check "dry-run: no object created" test "$(grep -c -e ' create -f ' -e ' delete ' "$out/kubectl.log")" = 0
check "dry-run: the namespace and four pod manifests are printed" \
	test "$(grep -c '"kind": "Pod"' "$out/stdout")" = 4 -a "$(grep -c '"kind": "Namespace"' "$out/stdout")" = 1
check "dry-run: no manifest file is written (TMPDIR and HOME stay empty)" \
	test -z "$(ls -A "$TMP/tmp")" -a -z "$(find "$out/home" -name 'k8s-*.json' 2>/dev/null)"

# 4. The namespace is there already and the API refuses the pods: the
# namespace is left alone, every GPU node is named with the refusal, and
# the (label-selected) delete still runs.
FX3=$TMP/fx3
cp -r "$FX" "$FX3"
printf 'namespace/cmax-audit\n' >"$FX3/cmd/kubectl/ns-get/stdout"
: >"$FX3/cmd/kubectl/ns-get/stderr"
echo 0 >"$FX3/cmd/kubectl/ns-get/exit"
d=$FX3/cmd/kubectl/create-refused-pods
mkdir -p "$d"
printf '%s\n' $R create -f "$TMP/refused/run/k8s-pods.json" -o name >"$d/argv"
echo 'Error from server (Forbidden): error when creating "pods.json": pods "cmax-t3-0" is forbidden: violates PodSecurity "restricted:latest": privileged' >"$d/stderr"
echo 1 >"$d/exit"
d=$FX3/cmd/kubectl/pods-t3
mkdir -p "$d"
printf '%s\n' $R get pods -n cmax-audit -l cmax.audit/run=t3 -o json >"$d/argv"
echo '{"apiVersion":"v1","kind":"List","items":[]}' >"$d/stdout"
mkdir -p "$FX3/cmd/kubectl/del-pods-t3"
sed s/t1/t3/ "$FX3/cmd/kubectl/del-pods-t1/argv" >"$FX3/cmd/kubectl/del-pods-t3/argv"
out=$TMP/refused
FX_SAVE=$FX FX=$FX3
run_pods "$out" t3 --yes --json --exit-zero --node-image "$IMAGE" --output-dir "$out/run"
FX=$FX_SAVE
checkd "refused: exits 0 (got $(cat "$out/rc"))" "$out/stderr" test "$(cat "$out/rc")" = 0
checkd "refused: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
checkd "refused: the existing namespace is neither created nor deleted" "$out/kubectl.log" \
	test "$(grep -c -e 'namespace.json' -e 'delete namespace' "$out/kubectl.log")" = 0
check "refused: no namespace manifest is written for a namespace that exists" test ! -e "$out/run/k8s-namespace.json"
checkd "refused: the pods are deleted by label anyway" "$out/kubectl.log" \
	grep -q 'delete pods -n cmax-audit -l cmax.audit/run=t3' "$out/kubectl.log"
"$PY" -c 'import json,sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["id"] == "orchestration.fleet-coverage" and r.get("host", "").startswith("gb200-")]
sys.exit(0 if len(rows) == 4 and all(r["status"] == "ERROR" and "Forbidden" in r["summary"] for r in rows) else 1)' "$out/stdout"
checkd "refused: every GPU node is an ERROR naming the refusal" "$out/stdout" test $? = 0

# 5. Concurrent runs share the namespace. (a) It was there before this
# run: the run's pods go by label, the namespace stays.
FX4=$TMP/fx4
cp -r "$FX" "$FX4"
cp -r "$FX3/cmd/kubectl/ns-get" "$FX4/cmd/kubectl/"
out=$TMP/preexisting
FX_SAVE=$FX FX=$FX4
run_pods "$out" t1 --yes --json --exit-zero --node-image "$IMAGE" --output-dir "$out/run"
FX=$FX_SAVE
checkd "pre-existing namespace: exits 0 (got $(cat "$out/rc"))" "$out/stderr" test "$(cat "$out/rc")" = 0
checkd "pre-existing namespace: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
checkd "pre-existing namespace: this run's pods are deleted by its label after their create" "$out/kubectl.log" \
	test "$(call_at "$out/kubectl.log" 'delete pods -n cmax-audit -l cmax.audit/run=t1 ')" -gt \
	"$(call_at "$out/kubectl.log" "create -f $out/run/k8s-pods.json")" -a \
	"$(call_at "$out/kubectl.log" "create -f $out/run/k8s-pods.json")" -gt 0
checkd "pre-existing namespace: it is neither created nor deleted" "$out/kubectl.log" \
	test "$(grep -c -e 'k8s-namespace.json' -e 'delete namespace' "$out/kubectl.log")" = 0
checkd "pre-existing namespace: pods are deleted by the run label only" "$out/kubectl.log" pods_by_label_only "$out" t1

# (b) Another run created it between this run's look and its create
# (AlreadyExists): this run uses it and leaves it.
FX5=$TMP/fx5
cp -r "$FX" "$FX5"
out=$TMP/raced
d=$FX5/cmd/kubectl/create-raced-namespace
mkdir -p "$d"
printf '%s\n' $R create -f "$out/run/k8s-namespace.json" -o name >"$d/argv"
echo "Error from server (AlreadyExists): error when creating \"$out/run/k8s-namespace.json\": namespaces \"cmax-audit\" already exists" >"$d/stderr"
echo 1 >"$d/exit"
FX_SAVE=$FX FX=$FX5
run_pods "$out" t1 --yes --json --exit-zero --node-image "$IMAGE" --output-dir "$out/run"
FX=$FX_SAVE
checkd "AlreadyExists: exits 0 (got $(cat "$out/rc"))" "$out/stderr" test "$(cat "$out/rc")" = 0
checkd "AlreadyExists: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
checkd "AlreadyExists: the pods are created and deleted by label, the namespace is not deleted" "$out/kubectl.log" \
	test "$(call_at "$out/kubectl.log" "create -f $out/run/k8s-pods.json")" -gt 0 -a \
	"$(grep -c 'delete pods -n cmax-audit -l cmax.audit/run=t1 ' "$out/kubectl.log")" = 1 -a \
	"$(grep -c 'delete namespace' "$out/kubectl.log")" = 0

# (c) This run created it, but another run's pod is still in it when this
# run is done: the namespace is left, and stderr says so.
FX6=$TMP/fx6
cp -r "$FX" "$FX6"
printf 'pod/cmax-t9-0\n' >"$FX6/cmd/kubectl/others-t1/stdout"
: >"$FX6/cmd/kubectl/others-t1/stderr"
out=$TMP/shared
FX_SAVE=$FX FX=$FX6
run_pods "$out" t1 --yes --json --exit-zero --node-image "$IMAGE" --output-dir "$out/run"
FX=$FX_SAVE
checkd "shared namespace: exits 0 (got $(cat "$out/rc"))" "$out/stderr" test "$(cat "$out/rc")" = 0
checkd "shared namespace: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
checkd "shared namespace: this run's pods deleted by label, then other pods looked for" "$out/kubectl.log" \
	test "$(call_at "$out/kubectl.log" 'get pods -n cmax-audit -l cmax.audit/run!=t1 -o name')" -gt \
	"$(call_at "$out/kubectl.log" 'delete pods -n cmax-audit -l cmax.audit/run=t1 ')" -a \
	"$(call_at "$out/kubectl.log" 'delete pods -n cmax-audit -l cmax.audit/run=t1 ')" -gt 0
checkd "shared namespace: the namespace holding another run's pod is not deleted" "$out/kubectl.log" \
	test "$(grep -c 'delete namespace' "$out/kubectl.log")" = 0
grep -q "namespace cmax-audit is left in place: it holds 1 pod(s) of other runs" "$out/stderr"
checkd "shared namespace: stderr says why it is left" "$out/stderr" test $? = 0

# 6. Interrupted while waiting for the pods (the poll answers after 3 s):
# the objects are deleted, then cmax ends by the signal.
for sig in INT TERM; do
	out=$TMP/sig$sig
	mkdir -p "$out"
	add_creates "$out"
	: >"$TMP/kubectl.log"
	(
		cd "$PROF" && exec env -i --default-signal=INT HOME="$out/home" CMAX_HOME="$out/cmax-home" PATH="$BIN" TZ=UTC TMPDIR="$TMP/tmp" \
			$(grep -v '^#' env) CMAX_RUN_ID=t2 KUBECONFIG="$KCFG" CMAX_FAKE_DIR="$FX/cmd" \
			CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --k8s --sysroot root --yes --json --node-image "$IMAGE" --output-dir "$out/run"
	) >"$out/stdout" 2>"$out/stderr" &
	pid=$!
	for _ in $(seq 100); do
		grep -q "get pods" "$TMP/kubectl.log" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.5
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	cp "$TMP/kubectl.log" "$out/kubectl.log"
	want=$((128 + $(kill -l "$sig")))
	checkd "SIG$sig: cmax ends by the signal (status $want, got $rc)" "$out/stderr" test "$rc" = "$want"
	checkd "SIG$sig: pods, then the (empty) namespace deleted after the create" "$out/kubectl.log" creates_deleted "$out" t2
	checkd "SIG$sig: pods are deleted by the run label only" "$out/kubectl.log" pods_by_label_only "$out" t2
	check "SIG$sig: no logs read after the signal" test "$(grep -c ' logs ' "$out/kubectl.log")" = 0
	grep -q "interrupted; collector pods of run t2 deleted" "$out/stderr"
	checkd "SIG$sig: says so" "$out/stderr" test $? = 0
	checkd "SIG$sig: the manifests are kept in the run directory" "$out/kubectl.log" manifests_kept "$out" k8s-namespace.json
	checkd "SIG$sig: no unrecorded kubectl call" "$out/fake.log" test ! -s "$out/fake.log"
done
check "no run wrote anything under TMPDIR" tmpdir_empty
done_testing
