#!/usr/bin/env bash
# Broken policy never passes: every consumer of a policy file validates it
# against its embedded schema (docs/schema/, core/policyfile.h) before use.
# Each command runs on mutated copies (CMAX_DATADIR pointing at a copy of
# data/, or the command's file flag) and must exit 65 with one line naming
# the file and the JSON pointer; the unmutated copies still work. Then:
# python3-jsonschema and cmax's validator agree on every shipped file, and
# the documents cmax writes validate with cmax's validator too.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
H=$SRCDIR/tests/fixtures/hosts
VALIDATE=$BUILD/test_jschema

# mutate SRC DST PYTHON: DST is SRC (JSON or YAML) with the statement applied to d
mutate() {
	"$PY" - "$1" "$2" "$3" <<'EOF'
import json, re, sys, yaml
class Y12(yaml.SafeLoader):
    pass
# YAML 1.2 floats (3.5e9), as cmax's loader reads them
Y12.add_implicit_resolver("tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"), list("-+0123456789."))
src, dst, stmt = sys.argv[1:4]
with open(src) as f:
    d = yaml.load(f, Loader=Y12) if src.endswith((".yaml", ".yml")) else json.load(f)
exec(stmt)
with open(dst, "w") as f:
    json.dump(d, f)  # JSON is YAML: plans stay readable by cmax
EOF
}

# refused DESC FILE POINTER-AND-MESSAGE COMMAND...: exit 65, one line, "FILE: POINTER: message"
refused() {
	local d=$1 file=$2 want=$3; shift 3
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	local rc=$?
	if [ "$rc" = 65 ]; then ok "$d: exit 65"; else not_ok "$d: exit $rc, want 65"; diag <"$TMP/err"; fi
	if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$file: $want" "$TMP/err"; then
		ok "$d: one line naming the file and the pointer"
	else
		not_ok "$d: one line with '$file: $want'"
		diag <"$TMP/err"
	fi
}
# works DESC WANT-RC COMMAND...
works() {
	local d=$1 want=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	local rc=$?
	if [ "$rc" = "$want" ]; then ok "$d: exit $rc"; else not_ok "$d: exit $rc, want $want"; diag <"$TMP/err"; fi
}

# a fixture host audited with another data directory (tests/lib/tap.sh's run_fixture pins data/)
audit_fixture() { # host datadir out
	local hd=$H/$1 out=$3
	mkdir -p "$out/bin" "$out/home"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	(cd "$hd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
		CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$2" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" audit --sysroot root --local --yes --output-dir "$out/run") >"$out/stdout" 2>"$out/stderr"
	echo $?
}
# datadir NAME FILE PYTHON: a copy of data/ with FILE mutated
datadir() {
	local dd=$TMP/$1
	cp -r "$SRCDIR/data" "$dd"
	mutate "$SRCDIR/data/$2" "$dd/$2" "$3"
	echo "$dd"
}

# --- audit: thresholds, minimum table (shipped and --minimums), XID catalog, GPU models
cp -r "$SRCDIR/data" "$TMP/good"
check "audit: the unmutated copy still audits a fixture host (exit 0)" test "$(audit_fixture h100-healthy "$TMP/good" "$TMP/a0")" = 0
D=$(datadir th thresholds.json 'd["gpu"]["idle_temp_c_max"] = str(d["gpu"]["idle_temp_c_max"])')
refused "audit: a threshold written as a string" "$D/thresholds.json" "/gpu/idle_temp_c_max: expected number, got string" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a1"
D=$(datadir th2 thresholds.json 'del d["gpu"]["idle_utilization_pct_max"]')
refused "audit: a deleted threshold" "$D/thresholds.json" "/gpu: missing required key 'idle_utilization_pct_max'" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a2"
mutate "$SRCDIR/data/minimum-versions.json" "$TMP/min.json" 'd["components"]["nvidiaDriver"]["fixAvailability"]["status"] = "confirmd"'
refused "audit --minimums: a misspelt fix status" "$TMP/min.json" \
	"/components/nvidiaDriver/fixAvailability/status: 'confirmd' is not one of confirmed, pending" \
	"$CMAX" audit --minimums "$TMP/min.json" --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a3"
D=$(datadir mv minimum-versions.json 'd["maxAgeDays"] = "30"')
refused "audit: the shipped minimum table broken" "$D/minimum-versions.json" "/maxAgeDays: expected integer, got string" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a4"
D=$(datadir xc xid-catalog.json 'd["xids"][0]["mnemonc"] = d["xids"][0].pop("mnemonic")')
refused "audit: a misspelt key in the XID catalog" "$D/xid-catalog.json" "/xids/0/mnemonc: unknown key 'mnemonc' (did you mean 'mnemonic'?)" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a5"
D=$(datadir gm gpu-models.json 'del d["models"][0]["sm"]')
refused "audit: a deleted key in the GPU models" "$D/gpu-models.json" "/models/0: missing required key 'sm'" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a6"
D=$(datadir ks kernel-series.json 'd["series"][2]["fixes"][0]["compare"] = "abi"')
refused "audit: an unknown comparison in the kernel series table" "$D/kernel-series.json" \
	"/series/2/fixes/0/compare: 'abi' is not one of release, upstream" \
	env CMAX_DATADIR="$D" "$CMAX" audit --sysroot "$H/h100-healthy/root" --local --yes --output-dir "$TMP/a6k"

# --- bench: bench-thresholds (--thresholds and shipped), gpu-specs, gemm-shapes
mkdir -p "$TMP/fs"
works "bench storage: the unmutated thresholds" 0 "$CMAX" bench storage --path "$TMP/fs" --thresholds "$TMP/good/bench-thresholds.json" --dry-run
mutate "$SRCDIR/data/bench-thresholds.json" "$TMP/bt.json" 'd["storage"]["seq-read-1m-buffered"]["bw_gb_s"]["warn_below"] = "3.5"'
refused "bench storage --thresholds: a limit as a string" "$TMP/bt.json" \
	"/storage/seq-read-1m-buffered/bw_gb_s/warn_below: expected number, got string" \
	"$CMAX" bench storage --path "$TMP/fs" --thresholds "$TMP/bt.json" --dry-run
D=$(datadir bt bench-thresholds.json 'del d["net"]["latency_64k_us"]["fail_above"]')
refused "bench net: a deleted limit in the shipped file" "$D/bench-thresholds.json" "/net/latency_64k_us: missing required key 'fail_above'" \
	env CMAX_DATADIR="$D" "$CMAX" bench metadata --path "$TMP/fs" --dry-run
works "bench gpu: the unmutated specs and shapes" 0 "$CMAX" bench gpu --specs "$TMP/good/gpu-specs.json" --shapes "$TMP/good/gemm-shapes.json" --dry-run
mutate "$SRCDIR/data/gpu-specs.json" "$TMP/specs.json" 'del d["models"]["H100"]["hbm_gb_s"]'
refused "bench gpu --specs: a deleted figure" "$TMP/specs.json" "/models/H100: missing required key 'hbm_gb_s'" \
	"$CMAX" bench gpu --specs "$TMP/specs.json" --dry-run
mutate "$SRCDIR/data/gemm-shapes.json" "$TMP/shapes.json" 'd["moe_models"][0]["top_k"] = "8"'
refused "bench gpu --shapes: a count as a string" "$TMP/shapes.json" "/moe_models/0/top_k: expected integer, got string" \
	"$CMAX" bench gpu --shapes "$TMP/shapes.json" --dry-run

# --- rate: rubric (--rubric, JSON or YAML), GPU models
RB=$SRCDIR/tests/fixtures/rate/base
works "rate: the unmutated rubric" 0 "$CMAX" rate "$RB" --rubric "$TMP/good/rubric.json" --json
mutate "$SRCDIR/data/rubric.json" "$TMP/rubric.yaml" 'd["tiers"]["Gold"]["min_score"] = "80"'
refused "rate --rubric: a tier bar as a string" "$TMP/rubric.yaml" "/tiers/Gold/min_score: expected number, got string" \
	"$CMAX" rate "$RB" --rubric "$TMP/rubric.yaml"
mutate "$SRCDIR/data/rubric.json" "$TMP/rubric2.json" 'd["disqualifiers"][0]["cap"] = "Bronz"'
refused "rate --rubric: an unknown cap" "$TMP/rubric2.json" "/disqualifiers/0/cap: 'Bronz' is not one of" \
	"$CMAX" rate "$RB" --rubric "$TMP/rubric2.json"
D=$(datadir rg gpu-models.json 'd["models"][0]["vendor"] = "nvidla"')
refused "rate: an unknown vendor in the GPU models" "$D/gpu-models.json" "/models/0/vendor: 'nvidla' is not one of nvidia, amd" \
	env CMAX_DATADIR="$D" "$CMAX" rate "$RB"

# --- sla: levels (--levels, shipped) and a level file (--level FILE)
SF=$SRCDIR/tests/fixtures/sla
works "sla: the unmutated levels" 0 env -C "$SF" "$CMAX" sla --events nvl72/two-trays.csv --layout nvl72/layout.yaml \
	--period 2026-11 --levels "$TMP/good/sla-levels.json" --json
mutate "$SRCDIR/data/sla-levels.json" "$TMP/levels.json" 'd["levels"][0]["credit_cap_pc"] = d["levels"][0].pop("credit_cap_pct")'
refused "sla --levels: a misspelt key" "$TMP/levels.json" "/levels/0/credit_cap_pc: unknown key 'credit_cap_pc' (did you mean 'credit_cap_pct'?)" \
	env -C "$SF" "$CMAX" sla --events nvl72/two-trays.csv --layout nvl72/layout.yaml --period 2026-11 --levels "$TMP/levels.json"
printf 'name: platinum\ntargets: {node: 99.99}\nexclusions_accepted: [maintenace]\n' >"$TMP/platinum.yaml"
refused "sla --level FILE: an unknown exclusion kind" "$TMP/platinum.yaml" "/exclusions_accepted/0: 'maintenace' is not one of" \
	env -C "$SF" "$CMAX" sla --events nvl72/two-trays.csv --layout nvl72/layout.yaml --period 2026-11 --level "$TMP/platinum.yaml"
D=$(datadir sl sla-levels.json 'd["definitions"]["systems"]["nvl72"]["rack_down"]["min_nodes_down"] = 3.5')
refused "sla: the shipped levels broken" "$D/sla-levels.json" "/definitions/systems/nvl72/rack_down" \
	env -C "$SF" CMAX_DATADIR="$D" "$CMAX" sla --events nvl72/two-trays.csv --layout nvl72/layout.yaml --period 2026-11

# --- health: --policy and --catalog
printf 'kernel: NVRM: Xid (PCI:0000:5a:00): 13, pid=1, name=a, Graphics SM Warp Exception\n' >"$TMP/kern.log"
echo '{"overrides": {"13": "reset_gpu"}}' >"$TMP/policy.json"
"$CMAX" health check --log-file "$TMP/kern.log" --policy "$TMP/policy.json" --catalog "$TMP/good/xid-catalog.json" \
	--dry-run --node n1 --state "$TMP/h.state" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
check "health: an unmutated policy and catalog are not refused (exit $rc)" test "$rc" != 65 -a "$rc" != 64
echo '{"overrides": {"13": "explode"}, "resume_when_clear": "yes"}' >"$TMP/policy.json"
refused "health --policy: an unknown action" "$TMP/policy.json" "/overrides/13: 'explode' is not one of none, restart_app" \
	"$CMAX" health check --log-file "$TMP/kern.log" --policy "$TMP/policy.json" --dry-run --node n1 --state "$TMP/h.state"
mutate "$SRCDIR/data/xid-catalog.json" "$TMP/cat.json" 'd["bucket_actions"]["IGNORE"] = "nothing"'
refused "health --catalog: an unknown action in the catalog" "$TMP/cat.json" "/bucket_actions/IGNORE: 'nothing' is not one of" \
	"$CMAX" health check --log-file "$TMP/kern.log" --catalog "$TMP/cat.json" --dry-run --node n1 --state "$TMP/h.state"

# --- inject: the XID catalog and the reliability limits (thresholds.json)
inject() { env SLURM_JOB_NODELIST="node[1-2]" "$@" "$CMAX" inject xid 79 --node node1 --gpu 0000:3b:00.0 \
	--log-file "$TMP/inj.log" --yes --inject-only; }
works "inject: the unmutated data" 0 inject CMAX_DATADIR="$TMP/good"
D=$(datadir ic xid-catalog.json 'd["xids"][5]["legacy_causes"] = ["DRIVER"]')
refused "inject: an unknown legacy cause in the catalog" "$D/xid-catalog.json" "/xids/5/legacy_causes/0: 'DRIVER' is not one of" \
	inject CMAX_DATADIR="$D"
D=$(datadir it thresholds.json 'd["reliability"]["inject_detect_s"]["fail_above"] = "120"')
refused "inject: a reliability limit as a string" "$D/thresholds.json" "/reliability/inject_detect_s/fail_above: expected number, got string" \
	inject CMAX_DATADIR="$D"

# --- accept: plans (a check only the schema makes: a source basis needs a URL)
works "accept: the unmutated plan" 0 "$CMAX" accept "$SRCDIR/data/accept/hgx-8gpu.yaml" --dry-run
mutate "$SRCDIR/data/accept/hgx-8gpu.yaml" "$TMP/plan.yaml" '
c = [c for t in d["tests"] for c in t["criteria"] if "basis" in c][0]
c["basis"] = {"kind": "source", "url": "contract annex 3", "checked": "2026-12-01", "figure": "x"}
ptr = [(i, j) for i, t in enumerate(d["tests"]) for j, c2 in enumerate(t["criteria"]) if c2 is c][0]
open(sys.argv[2] + ".ptr", "w").write("/tests/%d/criteria/%d/basis/url" % ptr)'
refused "accept: a source basis without a URL" "$TMP/plan.yaml" "$(cat "$TMP/plan.yaml.ptr"): 'contract annex 3' does not match the pattern" \
	"$CMAX" accept "$TMP/plan.yaml" --dry-run

# --- python3-jsonschema and cmax's validator agree on every shipped file and every schema is a valid 2020-12 schema
"$PY" - "$SRCDIR" >"$TMP/py.out" 2>&1 <<'EOF'
import glob, json, os, re, sys, yaml, jsonschema
src = sys.argv[1]
class Y12(yaml.SafeLoader):
    pass
Y12.add_implicit_resolver("tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"), list("-+0123456789."))
bad = 0
for f in sorted(glob.glob(src + "/docs/schema/*.schema.json")):
    try:
        jsonschema.Draft202012Validator.check_schema(json.load(open(f)))
    except Exception as e:
        print("schema %s: %s" % (os.path.basename(f), str(e).splitlines()[0])); bad = 1
names = {"rubric.json": "rubric", "sla-levels.json": "sla-levels"}
for f in sorted(glob.glob(src + "/data/*.json")) + sorted(glob.glob(src + "/data/accept/*.yaml")):
    base = os.path.basename(f)
    name = "accept-plan" if "/accept/" in f else base[:-5]
    s = json.load(open("%s/docs/schema/%s.schema.json" % (src, name)))
    doc = yaml.load(open(f), Loader=Y12) if f.endswith(".yaml") else json.load(open(f))
    for e in jsonschema.Draft202012Validator(s).iter_errors(doc):
        print("%s: /%s: %s" % (base, "/".join(map(str, e.absolute_path)), e.message[:200])); bad = 1
sys.exit(bad)
EOF
rc=$?
check "python3-jsonschema: every schema is a valid 2020-12 schema and every shipped file validates" test $rc = 0
[ $rc = 0 ] || diag <"$TMP/py.out"
# cmax's side: test_policy_mutation validates every shipped file (and its mutations) with the C validator

# --- the documents cmax writes validate with cmax's own validator (rate, rate-compare, sla, accept, audit, bench)
"$CMAX" rate "$RB" --json >"$TMP/rate.json" 2>/dev/null
"$CMAX" rate --compare "$SRCDIR/tests/fixtures/rate/real" "$RB" --json >"$TMP/compare.json" 2>/dev/null
(cd "$SF" && "$CMAX" sla --events nvl72/two-trays.csv --layout nvl72/layout.yaml --period 2026-11 --json) >"$TMP/sla.json" 2>/dev/null
"$CMAX" accept "$SRCDIR/data/accept/hgx-8gpu.yaml" --dry-run --json >"$TMP/accept.json" 2>/dev/null
CMAX_CUDA_LIBDIR=/nonexistent "$CMAX" bench gpu --json >"$TMP/bench-gpu.json" 2>/dev/null </dev/null
docs=()
# (the result fixtures under tests/fixtures/rate and accept are hand-written inputs, not cmax's output)
for f in "$TMP/rate.json" "$TMP/compare.json" "$TMP/sla.json" "$TMP/accept.json" "$TMP/bench-gpu.json" "$TMP/a0/run"/*.json "$H"/*/expected.json; do
	[ -s "$f" ] && "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if isinstance(d, dict) and str(d.get("schema","")).startswith("cmax.") and d["schema"] in ("cmax.audit.results/1","cmax.bench.results/1","cmax.rate/1","cmax.rate.compare/1","cmax.sla/1","cmax.accept/1") else 1)' "$f" 2>/dev/null && docs+=("$f")
done
check "documents to check: rate, compare, sla, accept, bench and audit results (${#docs[@]})" test ${#docs[@]} -ge 10
"$VALIDATE" --validate "${docs[@]}" >"$TMP/v.out" 2>&1
check "every document validates against its schema with cmax's validator" test $? = 0
grep -q '^not ok' "$TMP/v.out" && grep -A1 '^not ok' "$TMP/v.out" | diag
done_testing
