#!/usr/bin/env bash
# cmax rate: the table of cases under tests/fixtures/rate (README there),
# each assembled into a provider directory and rated with the shipped rubric;
# every expected number is worked out in the comment above its check. Then a
# replaced rubric, --compare of three providers, goodput flags, -v, the audit
# run directory, and the refusals (64/65/66/73, one line each).
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
F=$SRCDIR/tests/fixtures/rate
if ! command -v python3 >/dev/null; then
	skip "python3 is needed to assemble the fixtures and read the JSON"
	done_testing; exit
fi
# the interpreter itself first on PATH: a pyenv shim costs half a second a start
PY=$(python3 -c 'import sys; print(sys.executable)'); PATH=$(dirname "$PY"):$PATH
python3 "$F/assemble.py" "$TMP" base dq-acs dq-gpudirect dq-older-gpus dq-no-soc2 dq-billing not-assessed missing \
	duplicate unavailable underperforming || not_ok "assemble the fixtures"
# jcheck FILE, then lines "description :: python expression :: expected value" (or
# "description :: expression that must be True") on stdin: one python process
# evaluates them all against d, the JSON document, and each becomes a TAP line.
JCHECK='import json, sys
d = json.load(open(sys.argv[1]))
cat = lambda i: [c for c in d["categories"] if c["id"] == i][0]
item = lambda i: [x for c in d["categories"] for x in c["items"] if x["id"] == i][0]
dq = lambda i: [q for q in d["disqualifiers"] if q["id"] == i][0]
for line in sys.stdin:
    parts = line.rstrip("\n").split(" :: ")
    if len(parts) < 2:
        continue
    try:
        got = eval(parts[1])
        good = got == eval(parts[2]) if len(parts) > 2 else got is True
    except Exception as e:
        got, good = "%s: %s" % (type(e).__name__, e), False
    print("ok " + parts[0] if good else "not ok %s (got %r)" % (parts[0], got))'
jcheck() {
	local line
	while IFS= read -r line; do
		case $line in "ok "*) ok "${line#ok }" ;; *) not_ok "${line#not ok }" ;; esac
	done < <(python3 -c "$JCHECK" "$1")
}
rate() { # case, extra args...: JSON to $TMP/<case>.json, text to $TMP/<case>.txt, exit code echoed
	local c=$1; shift
	"$CMAX" rate "$TMP/$c" "$@" --json >"$TMP/$c.json" 2>"$TMP/$c.err"
	local rc=$?
	"$CMAX" rate "$TMP/$c" "$@" >"$TMP/$c.txt" 2>/dev/null
	echo "$rc"
}
lines_of() { wc -l <"$1"; }

# --- --help names every option, and docs/rate.md documents each
"$CMAX" rate --help >"$TMP/help"
check "--help exits 0" [ $? -eq 0 ]
missing=""
for o in $(grep -oE -- '--[a-z][a-z-]+' "$TMP/help" | sort -u); do
	grep -q -- "$o" "$SRCDIR/docs/rate.md" || missing="$missing $o"
done
check "every option of --help is in docs/rate.md${missing:+ (missing:$missing)}" test -z "$missing"

# --- a strong provider: every category evidenced, all but three items at 100.
# storage: endurance 8% -> (40-8)/(40-5) = 91.4286 at weight 3 of 16:
#   (16 x 100 - 3 x 8.5714) / 16 = 98.3929
# pricing: 3.10 per GPU-hour -> (6-3.1)/(6-2.5) = 82.8571 at weight 2 of 10: 96.5714
# overall: (100 x 100 - 12 x 1.6071 - 8 x 3.4286) / 100 = 99.5329, confidence 1
# goodput, 32 GPUs, 8 per node, 10 job starts a day, 1 failure a month, 10% storage-bound, 730 h:
#   import  10 x 30.4167 x 1.5 s (worst tier) x 32 / 3600 = 4.0556
#   model   10 x 30.4167 x 20 s (140 GB / 7 GB/s) x 32 / 3600 = 54.0741
#   detect  1 x 60 s x 8 / 3600 = 0.1333;  return 1 x (1800 - 60) s x 8 / 3600 = 3.8667
#   storage 8 / 100 x 0.1 x 32 x 730 = 186.88
#   total 249.0096 of 23360 GPU-h = 1.066%; x 3.10 USD (attested) = 771.93
rc=$(rate base)
check "base: exit 0" test "$rc" = 0
jcheck "$TMP/base.json" <<'CHECKS'
base: Platinum, score 99.5329, confidence 1 :: (d["schema"], d["tier"], d["score"], d["confidence"], d["provider"]) :: ("cmax.rate/1", "Platinum", 99.5329, 1.0, "Alpha Cloud")
base: storage 98.3929, pricing 96.5714, security 100 :: [cat(c)["score"] for c in ("storage", "pricing", "security")] :: [98.3929, 96.5714, 100.0]
base: model load 20 s from the best sequential read (7 GB/s) :: (item("storage.model-load")["value"], item("storage.model-load")["score"]) :: (20.0, 100.0)
base: endurance 8% scores 91.4286 :: item("storage.endurance-degradation")["score"] :: 91.4286
base: reboot time from the usable event (240 s) :: item("reliability.reboot-time")["value"] :: 240.0
base: every disqualifier clear :: sorted(set(q["state"] for q in d["disqualifiers"])) :: ["clear"]
base: goodput lines :: [l["gpu_hours_per_month"] for l in d["goodput"]["lines"]] :: [4.0556, 54.0741, 0.1333, 3.8667, 186.88]
base: goodput total, share of rent, money at the attested price :: [d["goodput"][k] for k in ("total_gpu_hours_per_month", "total_pct_of_rent", "total_money_per_month", "lower_bound")] :: [249.0096, 1.066, 771.9299, False]
base: price from the attestation :: d["goodput"]["assumptions"]["price_per_gpu_hour"] :: {"value": 3.1, "source": "attestation"}
base: the import line names its figure, row and file :: d["goodput"]["lines"][0]["from"][0] :: {"item": "lifecycle.import-torch", "value": 1.5, "never": False, "unit": "s", "row": "bench.lifecycle-import-torch-2", "host": "gpu017", "file": sys.argv[1][:-len(".json")] + "/bench-lifecycle.json"}
CHECKS
check "base: rubric version named in text" grep -q '^cmax rate: Alpha Cloud (rubric 2026.11-1, ClusterMAX 3.0)$' "$TMP/base.txt"
check "base: tier line" grep -q '^Tier: Platinum$' "$TMP/base.txt"
check "base: goodput line names its figure and row in text" \
	grep -q 'model load at job start .* 54.07 .*storage.model-load = 20 s (bench.storage-seq-read-1m-direct-c1 on gpu017)' "$TMP/base.txt"
# flags: 64 GPUs doubles the import line (8.1111 GPU-h); at 2.5 per GPU-hour 20.2778
"$CMAX" rate "$TMP/base" --gpus 64 --price-per-gpu-hour 2.5 --json >"$TMP/flags.json"
jcheck "$TMP/flags.json" <<'CHECKS'
flags: --gpus 64 doubles import waiting, price from the flag :: (d["goodput"]["lines"][0]["gpu_hours_per_month"], d["goodput"]["lines"][0]["money_per_month"], d["goodput"]["assumptions"]["price_per_gpu_hour"]["source"], d["goodput"]["assumptions"]["gpus"]["source"]) :: (8.1111, 20.2778, "flag", "flag")
CHECKS
"$CMAX" rate "$TMP/base" -v >"$TMP/v.txt"
check "-v: items with weight, score and the rows that counted" \
	bash -c "grep -qE '^    endurance-degradation +w 3 +91.4 +8 % \(worst of 2\)' '$TMP/v.txt' && grep -q 'PASS  hardware.pcie-acs on gpu018' '$TMP/v.txt'"

# --- each disqualifier caps the tier and is named
# ACS: networking pcie-acs gpu017 FAIL, gpu018 PASS -> 50 at weight 1 of 15: 96.6667;
#   overall 99.5329 - 12 x 3.3333 / 100 = 99.1329; GPUDirect the same arithmetic (gdrcopy PASS twice)
# no SOC 2 / ISO: security certification 0 at weight 3 of 9 -> 66.6667; overall 99.5329 - 15 x 33.3333 / 100
# billing: pricing billing-downtime 0 at weight 3 of 10 -> 66.5714; overall 99.5329 - 8 x 30 / 100
for c in dq-acs dq-gpudirect dq-older-gpus dq-no-soc2 dq-billing; do
	check "$c: exit 0" test "$(rate $c)" = 0
done
jcheck "$TMP/dq-acs.json" <<'CHECKS'
ACS: Silver (Platinum uncapped), score 99.1329 :: (d["tier"], d["tier_uncapped"], d["score"]) :: ("Silver", "Platinum", 99.1329)
ACS: capped by pcie-acs, naming the node :: [(q["id"], q["cap"], q["why"]) for q in d["capped_by"]] :: [("pcie-acs", "Silver", "hardware.pcie-acs FAIL on gpu017")]
CHECKS
check "ACS: named in text with the row and the node" \
	grep -q '^  tier capped at Silver by: PCIe ACS left enabled (hardware.pcie-acs FAIL on gpu017; cap Silver)$' "$TMP/dq-acs.txt"
jcheck "$TMP/dq-gpudirect.json" <<'CHECKS'
GPUDirect RDMA: Silver, score 99.1329 :: (d["tier"], d["score"], [q["id"] for q in d["capped_by"]]) :: ("Silver", 99.1329, ["gpudirect-rdma"])
CHECKS
check "GPUDirect RDMA: named in text" grep -q 'GPUDirect RDMA not enabled (hardware.gpudirect-rdma FAIL on gpu018' "$TMP/dq-gpudirect.txt"
jcheck "$TMP/dq-older-gpus.json" <<'CHECKS'
older GPUs: Bronze, the score untouched :: (d["tier"], d["score"], [q["id"] for q in d["capped_by"]]) :: ("Bronze", 99.5329, ["older-gpus"])
CHECKS
check "older GPUs: names H100 from the audit and H200 from the attestation" \
	grep -q 'only older GPUs (only H100 (hardware.gpu-uniformity on gpu017), H200 (attestation gpus_offered); cap Bronze)' "$TMP/dq-older-gpus.txt"
jcheck "$TMP/dq-no-soc2.json" <<'CHECKS'
no SOC 2 / ISO 27001: Silver, score 94.5329 :: (d["tier"], d["score"], d["capped_by"][0]["name"]) :: ("Silver", 94.5329, "no SOC 2 or ISO 27001")
CHECKS
jcheck "$TMP/dq-billing.json" <<'CHECKS'
billing during downtime: Bronze, score 97.1329 :: (d["tier"], d["score"], d["capped_by"][0]["why"]) :: ("Bronze", 97.1329, "attestation billing.during_downtime: true")
CHECKS

# --- a disqualifier without evidence is not assessed, never applied
# confidence: security 6/9, networking 14/15, pricing 4/10 -> (10 + 10 + 10 + 12 + 11.2 + 15 + 8 + 3.2 + 3 + 7) / 100
# pricing without billing: (2 x 82.8571 + 100 + 100) / 4 = 91.4286; overall (10000 - 19.2857 - 8 x 8.5714) / 100
rate not-assessed >/dev/null
jcheck "$TMP/not-assessed.json" <<'CHECKS'
not assessed: ACS, SOC 2 and billing not assessed :: [dq(i)["state"] for i in ("pcie-acs", "no-soc2-iso27001", "billing")] :: ["not_assessed"] * 3
not assessed: nothing capped, Platinum, confidence 0.894, score 99.1214 :: (d["tier"], d["capped_by"], d["confidence"], d["score"]) :: ("Platinum", [], 0.894, 99.1214)
CHECKS
check "not assessed: says so in text" \
	grep -q '^  not assessed  PCIe ACS left enabled (cap Silver): hardware.pcie-acs: 2 rows, none graded (SKIP/ERROR)$' "$TMP/not-assessed.txt"

# --- missing evidence lowers confidence, not the score
# the audit and attestation only; confidence: lifecycle 6/14, storage 2/16, networking 7/15,
# reliability 7/18 -> (15 + 4.2857 + 10 + 1.5 + 5.6 + 5.8333 + 8 + 8 + 3 + 7) / 100 = 0.6822
rate missing >/dev/null
jcheck "$TMP/missing.json" <<'CHECKS'
missing: confidence 0.6822, Silver (Gold needs 0.70) :: (d["tier"], d["confidence"]) :: ("Silver", 0.6822)
missing: scores where evidence remains are unchanged :: [cat(c)["score"] for c in ("security", "pricing")] :: [100.0, 96.5714]
missing: an unmeasured item is shown as missing (no score), not 0 :: (item("storage.model-load")["evidence"], item("storage.model-load")["score"], item("storage.model-load")["detail"]) :: (False, None, "not measured: no bench.storage-seq-read-1m-* row in the evidence")
missing: overall score not lowered :: d["score"] >= 99.5329
missing: goodput causes not measured, total a lower bound :: (sorted(set(l["state"] for l in d["goodput"]["lines"])), d["goodput"]["lower_bound"]) :: (["not_measured"], True)
CHECKS

# --- duplicates: an older storage run of the same host loses row by row
rate duplicate >/dev/null
jcheck "$TMP/duplicate.json" <<'CHECKS'
duplicate: 8 rows, the newer file kept, the result equals base :: (len(d["duplicates"]), sorted(set(x["kept"].split("/")[-1] for x in d["duplicates"])), d["score"]) :: (8, ["bench-storage.json"], 99.5329)
CHECKS
check "duplicate: said in text" grep -q '^Duplicates: 8 rows seen in two documents, the newer kept:$' "$TMP/duplicate.txt"

# --- Unavailable (too little evidence) is not Underperforming (bad evidence)
rate unavailable >/dev/null
jcheck "$TMP/unavailable.json" <<'CHECKS'
unavailable: one category, Unavailable although what exists is bad :: (d["tier"], d["categories_with_evidence"], d["score"] < 45) :: ("Not Recommended - Unavailable", 1, True)
CHECKS
check "unavailable: says why" grep -q '^  too little evidence: 1 category with evidence (3 needed)' "$TMP/unavailable.txt"
"$CMAX" rate --attestation "$SRCDIR/examples/attestation-example.yaml" --json >"$TMP/att-only.json"
jcheck "$TMP/att-only.json" <<'CHECKS'
an attestation alone: Unavailable, nothing measured hands-on :: (d["tier"], d["categories_measured"], d["categories_with_evidence"] >= 3) :: ("Not Recommended - Unavailable", 0, True)
CHECKS
rate underperforming >/dev/null
jcheck "$TMP/underperforming.json" <<'CHECKS'
underperforming: plenty of evidence, low score :: (d["tier"], d["score"], d["confidence"]) :: ("Not Recommended - Underperforming", 42.7728, 0.7878)
underperforming: the undetected Xid is unbounded goodput loss, the return not measured :: [l["state"] for l in d["goodput"]["lines"]][2:4] :: ["unbounded", "not_measured"]
CHECKS

# --- a replaced rubric: its version is named and other weights change the result
python3 -c '
import json, sys
src, out = sys.argv[1], sys.argv[2]
r = json.load(open(src))
r["version"] = "test-storage-only"
for c in r["categories"]:
    c["weight"] = 1 if c["id"] == "storage" else 0
r["unavailable"]["min_categories"] = 1
json.dump(r, open(out + "/storage-only.json", "w"))
r = json.load(open(src))
r["version"] = "test-strict"
r["tiers"]["Platinum"]["min_score"] = 99.9
json.dump(r, open(out + "/strict.json", "w"))
r = json.load(open(src))
r["tiers"]["Gold"]["min_confidence"] = 0.9
json.dump(r, open(out + "/bad-rubric.json", "w"))' "$SRCDIR/data/rubric.json" "$TMP"
"$CMAX" rate "$TMP/base" --rubric "$TMP/storage-only.json" --json >"$TMP/alt.json"; rc=$?
"$CMAX" rate "$TMP/base" --rubric "$TMP/storage-only.json" >"$TMP/alt.txt"
check "replaced rubric: exit 0" test $rc -eq 0
jcheck "$TMP/alt.json" <<'CHECKS'
replaced rubric: its version, overall = the storage score 98.3929 :: (d["rubric"]["version"], d["score"]) :: ("test-storage-only", 98.3929)
CHECKS
check "replaced rubric: version in the text" grep -q '(rubric test-storage-only, ClusterMAX 3.0)' "$TMP/alt.txt"
"$CMAX" rate "$TMP/base" --rubric "$TMP/strict.json" --json >"$TMP/strict.out"
jcheck "$TMP/strict.out" <<'CHECKS'
replaced rubric: a higher Platinum bar makes base Gold :: (d["rubric"]["version"], d["tier"]) :: ("test-strict", "Gold")
CHECKS

# --- --compare: three providers ranked, each category ranked
"$CMAX" rate --compare "$TMP/underperforming" "$TMP/base" "$TMP/dq-acs" --json >"$TMP/cmp.json"; rc=$?
"$CMAX" rate --compare "$TMP/underperforming" "$TMP/base" "$TMP/dq-acs" >"$TMP/cmp.txt"
check "compare: exit 0" test $rc -eq 0
jcheck "$TMP/cmp.json" <<'CHECKS'
compare: schema :: d["schema"] :: "cmax.rate.compare/1"
compare: ranked Alpha (Platinum), Beta (Silver), Gamma (Underperforming) :: [(p["rank"], p["provider"], p["tier"]) for p in d["providers"]] :: [(1, "Alpha Cloud", "Platinum"), (2, "Beta GPU", "Silver"), (3, "Gamma Compute", "Not Recommended - Underperforming")]
compare: networking ranks 1, 2, 3; security ties at 1 :: [(p["categories"]["networking"]["score"], p["categories"]["networking"]["rank"], p["categories"]["security"]["rank"]) for p in d["providers"]] :: [(100.0, 1, 1), (96.6667, 2, 1), (71.4286, 3, 3)]
compare: each provider's whole rating included :: [p["rating"]["schema"] for p in d["providers"]] :: ["cmax.rate/1"] * 3
CHECKS
check "compare: text table" bash -c "grep -qE '^1 +Alpha Cloud +Platinum +99.5' '$TMP/cmp.txt' && grep -qE '^networking +100.0 \(#1\) +96.7 \(#2\) +71.4 \(#3\)' '$TMP/cmp.txt' && grep -q '^  Beta GPU: PCIe ACS left enabled (cap Silver)' '$TMP/cmp.txt'"

# --- an audit run directory: results rated, the values document skipped with a note
mkdir -p "$TMP/run"
cp "$SRCDIR/tests/fixtures/hosts/b300-healthy/expected.json" "$TMP/run/audit.results.json"
printf '{"schema":"cmax.audit.values/1","facts":{}}\n' >"$TMP/run/audit.values.json"
"$CMAX" rate "$TMP/run" --json >"$TMP/run.json"; rc=$?
check "run directory: exit 0" test $rc -eq 0
jcheck "$TMP/run.json" <<'CHECKS'
run directory: one audit document, the values file skipped, no attestation :: (len(d["inputs"]), d["inputs"][0]["kind"], "audit.values.json skipped" in d["input_notes"][0], d["attestation"]) :: (1, "audit", True, None)
CHECKS

# --- --output-file
"$CMAX" rate "$TMP/base" --output-file "$TMP/out.json" >"$TMP/out.txt"; rc=$?
check "--output-file: exit 0, text on stdout" bash -c "[ $rc -eq 0 ] && grep -q '^Tier: Platinum' '$TMP/out.txt'"
jcheck "$TMP/out.json" <<'CHECKS'
--output-file: the JSON document :: (d["schema"], d["tier"]) :: ("cmax.rate/1", "Platinum")
CHECKS
"$CMAX" rate "$TMP/base" --output-file /nonexistent/dir/out.json >/dev/null 2>"$TMP/err"; rc=$?
check "--output-file unwritable: 73, one line" test "$rc $(lines_of "$TMP/err")" = "73 1"

# --- refusals: usage 64, missing 66, broken 65; each one line naming the file or key
refuse() { # description, expected code, text the message holds, cmax rate args...
	local d=$1 want=$2 pat=$3; shift 3
	"$CMAX" rate "$@" >/dev/null 2>"$TMP/err"
	local rc=$?
	if [ "$rc" = "$want" ] && [ "$(lines_of "$TMP/err")" = 1 ] && grep -qF -- "$pat" "$TMP/err"; then
		ok "$d: $want, one line"
	else
		not_ok "$d: $want, one line (got $rc: $(head -c 300 "$TMP/err"))"
	fi
}
printf '{"schema":"cmax.bench.results/1","results":[{"id":"x","status":"PASS"}' >"$TMP/trunc.json"
mkdir -p "$TMP/brokendir"
cp "$TMP/base/bench-net.json" "$TMP/trunc.json" "$TMP/brokendir/"
printf 'schema: cmax.rubric/1\nversion: [\n' >"$TMP/bad-rubric.yaml"
printf 'provider: X\nsupport:\n  response_minutes: quick\n' >"$TMP/bad-att.yaml"
refuse "no input" 64 "no result files given"
refuse "--compare with one provider" 64 "at least two" --compare "$TMP/base"
refuse "--gpus many" 64 "--gpus: 'many' is not a number" --gpus many "$TMP/base"
refuse "--storage-bound-fraction 2" 64 "from 0 to 1" --storage-bound-fraction 2 "$TMP/base"
refuse "unknown option" 64 "unknown option '--frobnicate'" --frobnicate "$TMP/base"
refuse "--attestation with --compare" 64 "--attestation" --compare --attestation "$TMP/base/attestation.yaml" "$TMP/base" "$TMP/dq-acs"
refuse "missing result file" 66 "nope.json" "$TMP/nope.json"
refuse "truncated result file" 65 "trunc.json: not valid JSON" "$TMP/trunc.json"
refuse "a JSON file that is not a result" 65 "not a result document" "$SRCDIR/data/rubric.json"
refuse "a broken file inside a directory" 65 "brokendir/trunc.json" "$TMP/brokendir"
refuse "missing rubric" 66 "nope.yaml" "$TMP/base" --rubric "$TMP/nope.yaml"
refuse "unparsable rubric" 65 "bad-rubric.yaml" "$TMP/base" --rubric "$TMP/bad-rubric.yaml"
refuse "rubric with a Gold bar above Platinum" 65 "tiers.Gold: a lower tier cannot ask for more than Platinum" "$TMP/base" --rubric "$TMP/bad-rubric.json"
refuse "attestation with a wrong type" 65 "support.response_minutes: expected a number, got a string" "$TMP/base/audit.json" --attestation "$TMP/bad-att.yaml"
refuse "missing attestation" 66 "nope.yaml" "$TMP/base/audit.json" --attestation "$TMP/nope.yaml"
printf 'provider: X\nfavourite_colour: blue\ncertifications: {soc2_type2: true}\n' >"$TMP/odd-att.yaml"
"$CMAX" rate "$TMP/base/audit.json" --attestation "$TMP/odd-att.yaml" --json >"$TMP/odd.json" 2>"$TMP/err"; rc=$?
check "attestation with an unknown key: warned, still rated" \
	bash -c "[ $rc -eq 0 ] && grep -q \"warning: attestation .*unknown key 'favourite_colour' ignored\" '$TMP/err' && grep -q favourite_colour '$TMP/odd.json'"
"$CMAX" rate "$TMP/base/audit.json" --attestation "$SRCDIR/examples/attestation-example.yaml" >/dev/null 2>"$TMP/err"; rc=$?
check "the example attestation validates without a warning" test "$rc $(lines_of "$TMP/err")" = "0 0"
# --- every document above against docs/schema/rate*.schema.json and what a schema cannot say
check "every rate --json document validates (tests/contract/validate-verdicts.py)" python3 "$SRCDIR/tests/contract/validate-verdicts.py" \
	"$TMP"/{base,flags,dq-acs,dq-gpudirect,dq-older-gpus,dq-no-soc2,dq-billing,not-assessed,missing,duplicate,unavailable,att-only,underperforming,alt,cmp,run,out,odd}.json "$TMP/strict.out"
done_testing
