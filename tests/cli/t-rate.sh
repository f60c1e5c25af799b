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
python3 "$F/assemble.py" "$TMP" base dq-acs dq-gpudirect dq-older-gpus dq-no-soc2 dq-billing dq-two not-assessed missing \
	duplicate unavailable underperforming hgx-2h nvl72-return nvl72-kept-off hang lifecycle-bad quick malformed ||
	not_ok "assemble the fixtures"
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
base: the import line names its figure, row, file and mode :: d["goodput"]["lines"][0]["from"][0] :: {"item": "lifecycle.import-torch", "value": 1.5, "never": False, "unit": "s", "row": "bench.lifecycle-import-torch-2", "host": "gpu017", "file": sys.argv[1][:-len(".json")] + "/bench-lifecycle.json", "mode": "full"}
base: nothing malformed :: d["malformed"] :: []
base: vLLM ready at 40 s, the top of the method's 10-40 s, scores 100 :: (item("lifecycle.vllm-ready")["value"], item("lifecycle.vllm-ready")["score"]) :: (40.0, 100.0)
CHECKS
check "base: rubric version named in text" grep -q '^cmax rate: Alpha Cloud (rubric 2026.12-1, ClusterMAX 3.0)$' "$TMP/base.txt"
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

# --- each quick disqualifier: the method puts such a provider in "Not Recommended -
# Underperforming", from where it "can quickly rise" by fixing the issue: the tier without
# it is what the evidence earns (base is Platinum uncapped), and the output says so.
# ACS: networking pcie-acs gpu017 FAIL, gpu018 PASS -> 50 at weight 1 of 15: 96.6667;
#   overall 99.5329 - 12 x 3.3333 / 100 = 99.1329; GPUDirect the same arithmetic (gdrcopy PASS twice)
# no SOC 2 / ISO: security certification 0 at weight 3 of 9 -> 66.6667; overall 99.5329 - 15 x 33.3333 / 100
# billing: pricing billing-downtime 0 at weight 3 of 10 -> 66.5714; overall 99.5329 - 8 x 30 / 100
UNDER="Not Recommended - Underperforming"
for c in dq-acs dq-gpudirect dq-older-gpus dq-no-soc2 dq-billing dq-two; do
	check "$c: exit 0" test "$(rate $c)" = 0
done
jcheck "$TMP/dq-acs.json" <<'CHECKS'
ACS: Underperforming, Platinum uncapped, score 99.1329 :: (d["tier"], d["tier_uncapped"], d["score"]) :: ("Not Recommended - Underperforming", "Platinum", 99.1329)
ACS: capped by pcie-acs, naming the node, would rate Platinum once fixed :: [(q["id"], q["cap"], q["why"], q["would_rate"]) for q in d["capped_by"]] :: [("pcie-acs", "Not Recommended - Underperforming", "hardware.pcie-acs FAIL on gpu017", "Platinum")]
CHECKS
check "ACS: named in text with the row and the node" \
	grep -q "^  tier capped at $UNDER by: PCIe ACS left enabled (hardware.pcie-acs FAIL on gpu017; cap $UNDER)\$" "$TMP/dq-acs.txt"
check "ACS: what fixing it gives" grep -q '^  fix: PCIe ACS left enabled -> would rate Platinum$' "$TMP/dq-acs.txt"
jcheck "$TMP/dq-gpudirect.json" <<'CHECKS'
GPUDirect RDMA: Underperforming, score 99.1329, would rate Platinum :: (d["tier"], d["score"], [(q["id"], q["would_rate"]) for q in d["capped_by"]]) :: ("Not Recommended - Underperforming", 99.1329, [("gpudirect-rdma", "Platinum")])
CHECKS
check "GPUDirect RDMA: named in text" grep -q 'GPUDirect RDMA not enabled (hardware.gpudirect-rdma FAIL on gpu018' "$TMP/dq-gpudirect.txt"
jcheck "$TMP/dq-older-gpus.json" <<'CHECKS'
older GPUs: Underperforming, the score untouched, would rate Platinum :: (d["tier"], d["score"], [(q["id"], q["would_rate"]) for q in d["capped_by"]]) :: ("Not Recommended - Underperforming", 99.5329, [("older-gpus", "Platinum")])
CHECKS
check "older GPUs: names H100 from the audit and H200 from the attestation" \
	grep -q "only older GPUs (only H100 (hardware.gpu-uniformity on gpu017), H200 (attestation gpus_offered); cap $UNDER)" "$TMP/dq-older-gpus.txt"
jcheck "$TMP/dq-no-soc2.json" <<'CHECKS'
no SOC 2 / ISO 27001: Underperforming, score 94.5329, Platinum without it :: (d["tier"], d["score"], d["capped_by"][0]["name"], d["capped_by"][0]["would_rate"]) :: ("Not Recommended - Underperforming", 94.5329, "no SOC 2 or ISO 27001", "Platinum")
CHECKS
jcheck "$TMP/dq-billing.json" <<'CHECKS'
billing during downtime: Underperforming, score 97.1329, Platinum without it :: (d["tier"], d["score"], d["capped_by"][0]["why"], d["capped_by"][0]["would_rate"]) :: ("Not Recommended - Underperforming", 97.1329, "attestation billing.during_downtime: true", "Platinum")
CHECKS
# two at once: fixing one leaves the other's cap; fixing both gives the uncapped tier
# score: 99.5329 - 12 x 3.3333 / 100 (ACS) - 8 x 30 / 100 (billing during creation) = 96.7329
jcheck "$TMP/dq-two.json" <<'CHECKS'
two disqualifiers: both named, each fix alone still Underperforming :: (d["tier"], d["tier_uncapped"], d["score"], [(q["id"], q["would_rate"]) for q in d["capped_by"]]) :: ("Not Recommended - Underperforming", "Platinum", 96.7329, [("pcie-acs", "Not Recommended - Underperforming"), ("billing", "Not Recommended - Underperforming")])
CHECKS
check "two disqualifiers: fixing both gives the uncapped tier, in text" grep -q '^  fix all 2 -> would rate Platinum$' "$TMP/dq-two.txt"

# --- a disqualifier without evidence is not assessed, never applied
# confidence: security 6/9, networking 14/15, pricing 4/10 -> (10 + 10 + 10 + 12 + 11.2 + 15 + 8 + 3.2 + 3 + 7) / 100
# pricing without billing: (2 x 82.8571 + 100 + 100) / 4 = 91.4286; overall (10000 - 19.2857 - 8 x 8.5714) / 100
rate not-assessed >/dev/null
jcheck "$TMP/not-assessed.json" <<'CHECKS'
not assessed: ACS, SOC 2 and billing not assessed :: [dq(i)["state"] for i in ("pcie-acs", "no-soc2-iso27001", "billing")] :: ["not_assessed"] * 3
not assessed: nothing capped, Platinum, confidence 0.894, score 99.1214 :: (d["tier"], d["capped_by"], d["confidence"], d["score"]) :: ("Platinum", [], 0.894, 99.1214)
CHECKS
check "not assessed: says so in text" \
	grep -q "^  not assessed  PCIe ACS left enabled (cap $UNDER): hardware.pcie-acs: 2 rows, none graded (SKIP/ERROR)\$" "$TMP/not-assessed.txt"

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

# --- recovery against the platform the inject document records
# HGX (anchors declared: good 1 h, the method's expectation; 0 at 4 h): back only after 2 h,
#   the method's "worse than the hour": (14400 - 7200) / (14400 - 3600) = 66.6667; the return row
#   FAILs too (injection 2 of 3 PASS: 66.6667); reliability (1800 - 3 x 33.3333 - 2 x 33.3333) / 18 = 90.7407
# NVL72 (detection plus keeping work off is the bar; a return counts in the provider's favour):
#   kept off, not returned: 80 (the declared bar score); back after 8 h 40 min: at least that,
#   80 + 20 x (86400 - 31200) / (86400 - 3600) = 93.3333; reliability 97.7778 vs 99.2593
for c in hgx-2h nvl72-return nvl72-kept-off; do
	check "$c: exit 0" test "$(rate $c)" = 0
done
python3 - "$TMP" <<'PY' | while IFS= read -r line; do case $line in "ok "*) ok "${line#ok }" ;; *) not_ok "${line#not ok }" ;; esac; done
import json, sys
t = sys.argv[1]
def load(c):
    return json.load(open("%s/%s.json" % (t, c)))
def item(d, i):
    return [x for c in d["categories"] for x in c["items"] if x["id"] == i][0]
def cat(d, i):
    return [c for c in d["categories"] if c["id"] == i][0]
def check(name, cond, got):
    print("ok " + name if cond else "not ok %s (got %r)" % (name, got))
b, h2, back, kept = load("base"), load("hgx-2h"), load("nvl72-return"), load("nvl72-kept-off")
rec = lambda d: item(d, "reliability.recovery-time")
check("HGX back after 2 h scores below back within the hour (method: worse than the hour)",
      rec(h2)["score"] < rec(b)["score"] == 100 and abs(rec(h2)["score"] - 66.6667) < 1e-3 and rec(h2)["platform"] == "hgx",
      (rec(h2)["score"], rec(b)["score"], rec(h2)["platform"]))
check("HGX 2 h: reliability 90.7407", cat(h2, "reliability")["score"] == 90.7407, cat(h2, "reliability")["score"])
check("NVL72 return after 8 h 40 min counts in the provider's favour: above a tray kept off",
      rec(back)["score"] > rec(kept)["score"] and cat(back, "reliability")["score"] > cat(kept, "reliability")["score"],
      (rec(back)["score"], rec(kept)["score"]))
check("NVL72 return after 8 h 40 min: 93.3333 against the nvl72 anchors (floor 80)",
      (rec(back)["score"], rec(back)["platform"], rec(back)["floor"]) == (93.3333, "nvl72", 80.0), (rec(back)["score"], rec(back)["platform"]))
check("NVL72 kept off: meets the bar, evidence (not missing), absent 80, confidence unchanged",
      (rec(kept)["evidence"], rec(kept)["absent"], rec(kept)["score"], cat(kept, "reliability")["confidence"]) == (True, True, 80.0, 1.0),
      (rec(kept)["evidence"], rec(kept)["absent"], rec(kept)["score"]))
check("NVL72 kept off: its GPUs stay out until replaced, an unbounded goodput loss; the return after 8 h 40 min is measured",
      kept["goodput"]["lines"][3]["state"] == "unbounded" and back["goodput"]["lines"][3]["gpu_hours_per_month"] == 69.3222,
      (kept["goodput"]["lines"][3]["state"], back["goodput"]["lines"][3]["gpu_hours_per_month"]))
PY

# --- a hung collective is a FAIL without a figure: counted against networking
# collectives: 2 PASS + 2 FAIL = 50; all-to-all line rate: the hung row is never -> 0;
# networking (1500 - 2 x 50 - 3 x 100) / 15 = 73.3333
check "hang: exit 0" test "$(rate hang)" = 0
jcheck "$TMP/hang.json" <<'CHECKS'
hang: all-gather and all-to-all hanging at 32 KiB count against networking (not 100) :: (cat("networking")["score"], item("networking.collectives")["score"]) :: (73.3333, 50.0)
hang: the hung all-to-all is never, the worst of the all-to-all figures :: (item("networking.alltoall-line-rate")["never"], item("networking.alltoall-line-rate")["score"], [r["counted"] for r in item("networking.alltoall-line-rate")["rows"]]) :: (True, 0.0, [True, True])
CHECKS

# --- the method's lifecycle figures it calls bad: vllm serve after 150 s (over 2 minutes),
# WAN at 0.78 Gbit/s (0.0975 GB/s); lifecycle (1400 - 100 - 100) / 14 = 85.7143
check "lifecycle-bad: exit 0" test "$(rate lifecycle-bad)" = 0
jcheck "$TMP/lifecycle-bad.json" <<'CHECKS'
vLLM ready after 150 s: bad (0) :: (item("lifecycle.vllm-ready")["value"], item("lifecycle.vllm-ready")["score"]) :: (150.0, 0.0)
WAN 0.78 Gbit/s: bad (0) :: (item("lifecycle.wan-download")["value"], item("lifecycle.wan-download")["score"]) :: (0.0975, 0.0)
lifecycle 85.7143 :: cat("lifecycle")["score"] :: 85.7143
CHECKS

# --- a quick storage run (32 MiB, 1 s) whose sequential reads FAIL: lower confidence, no goodput
# model load 140 / 0.1 = 1400 s (the best): 0, at confidence 0.5; storage confidence
#   (2 + 3 x 0.5 + 1 x 0.5 + 2 x 0.5 + 3 + 3 + 2) / 16 = 0.8125; goodput: base's total without
#   the model-load line, 4.0556 + 0.1333 + 3.8667 + 186.88 = 194.9356
check "quick: exit 0" test "$(rate quick)" = 0
jcheck "$TMP/quick.json" <<'CHECKS'
quick: the model load is scored, at lower confidence :: (item("storage.model-load")["value"], item("storage.model-load")["score"], item("storage.model-load")["confidence"], cat("storage")["confidence"]) :: (1400.0, 0.0, 0.5, 0.8125)
quick: never converted into lost GPU-hours :: (d["goodput"]["lines"][1]["state"], d["goodput"]["lines"][1]["gpu_hours_per_month"], "quick run" in d["goodput"]["lines"][1]["note"], d["goodput"]["total_gpu_hours_per_month"]) :: ("not_counted", None, True, 194.9356)
quick: the rows say their mode :: sorted(set(r["mode"] for r in item("storage.model-load")["rows"])) :: ["quick"]
CHECKS
check "quick: the goodput line says the figure came from a quick run" \
	grep -q '^  model load at job start         not counted .*(bench.storage-seq-read-1m-buffered-c1 on gpu017, not counted)$' "$TMP/quick.txt"

# --- impossible evidence is named, never scored: detect_s -100 and an import of 1e308 s
# import from the other tier (1.2 s): 10 x 30.4167 x 1.2 x 32 / 3600 = 3.2444; detection not measured,
# so the return line counts the whole 1800 s: 1 x 1800 x 8 / 3600 = 4.0; reliability confidence 15/18
check "malformed: exit 0" test "$(rate malformed)" = 0
jcheck "$TMP/malformed.json" <<'CHECKS'
malformed: both named with document, row and path :: [(m["file"].split("/")[-1], m["row"], m["path"]) for m in d["malformed"]] :: [("bench-lifecycle.json", "bench.lifecycle-import-torch-2", "observed.cold_s"), ("inject-xid79.json", "inject.detect", "timeline.times.detect_s")]
malformed: the negative detection is not scored: reliability keeps no detection, confidence 0.8333 :: (item("reliability.detect-time")["evidence"], cat("reliability")["confidence"], item("reliability.injection")["score"]) :: (False, 0.8333, 100.0)
malformed: no negative goodput :: ([l["gpu_hours_per_month"] for l in d["goodput"]["lines"]], min(l["gpu_hours_per_month"] or 0 for l in d["goodput"]["lines"]) >= 0) :: ([3.2444, 54.0741, None, 4.0, 186.88], True)
CHECKS
check "malformed: named in text" bash -c "grep -q '^Malformed evidence: 2 rows not scored:$' '$TMP/malformed.txt' &&
	grep -q 'inject-xid79.json: inject.detect on gpu017: timeline.times.detect_s: -100 is below 0 s (duration)$' '$TMP/malformed.txt'"

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
compare: ranked Alpha (Platinum), then the two Underperforming by score, Beta (99.1, ACS) before Gamma (42.8) :: [(p["rank"], p["provider"], p["tier"]) for p in d["providers"]] :: [(1, "Alpha Cloud", "Platinum"), (2, "Beta GPU", "Not Recommended - Underperforming"), (3, "Gamma Compute", "Not Recommended - Underperforming")]
compare: networking ranks 1, 2, 3; security ties at 1 :: [(p["categories"]["networking"]["score"], p["categories"]["networking"]["rank"], p["categories"]["security"]["rank"]) for p in d["providers"]] :: [(100.0, 1, 1), (96.6667, 2, 1), (71.4286, 3, 3)]
compare: each provider's whole rating included :: [p["rating"]["schema"] for p in d["providers"]] :: ["cmax.rate/1"] * 3
CHECKS
check "compare: text table" bash -c "grep -qE '^1 +Alpha Cloud +Platinum +99.5' '$TMP/cmp.txt' && grep -qE '^networking +100.0 \(#1\) +96.7 \(#2\) +71.4 \(#3\)' '$TMP/cmp.txt' && grep -q '^  Beta GPU: PCIe ACS left enabled (cap Not Recommended - Underperforming)' '$TMP/cmp.txt'"

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
refuse "--gpus many" 64 "--gpus wants a number such as 7.5, not 'many'" --gpus many "$TMP/base"
refuse "--storage-bound-fraction 2" 64 "out of range (0 to 1)" --storage-bound-fraction 2 "$TMP/base"
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
# a document whose timeline every row rests on is broken as a whole: 65 naming file and path
mkdir -p "$TMP/badtl"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
[e for e in d["events"] if e["event"] == "usable"][0]["offset_s"] = -240.0
json.dump(d, open(sys.argv[2], "w"))' "$TMP/base/reboot-gpu018.json" "$TMP/badtl/reboot-gpu018.json"
refuse "a reboot timeline with a negative offset" 65 "badtl/reboot-gpu018.json: malformed evidence: events.4.offset_s: -240 is below 0 s" "$TMP/badtl"
printf '{"schema":"cmax.bench.results/1","results":[{"id":"bench.lifecycle-vllm-ready","status":"PASS","observed":{"ready_s":NaN}}]}\n' >"$TMP/nan.json"
refuse "a NaN literal (not JSON)" 65 "nan.json: not valid JSON" "$TMP/nan.json"
printf 'provider: X\npricing: {price_per_gpu_hour: 1e308}\n' >"$TMP/huge-att.yaml"
refuse "an attested price beyond any offer" 65 "pricing.price_per_gpu_hour: expected a number from 0 to 1e+06, got 1e+308" "$TMP/base/audit.json" --attestation "$TMP/huge-att.yaml"
printf 'provider: X\nfavourite_colour: blue\ncertifications: {soc2_type2: true}\n' >"$TMP/odd-att.yaml"
"$CMAX" rate "$TMP/base/audit.json" --attestation "$TMP/odd-att.yaml" --json >"$TMP/odd.json" 2>"$TMP/err"; rc=$?
check "attestation with an unknown key: warned, still rated" \
	bash -c "[ $rc -eq 0 ] && grep -q \"warning: attestation .*unknown key 'favourite_colour' ignored\" '$TMP/err' && grep -q favourite_colour '$TMP/odd.json'"
"$CMAX" rate "$TMP/base/audit.json" --attestation "$SRCDIR/examples/attestation-example.yaml" >/dev/null 2>"$TMP/err"; rc=$?
check "the example attestation validates without a warning" test "$rc $(lines_of "$TMP/err")" = "0 0"
# --- every document above against docs/schema/rate*.schema.json and what a schema cannot say
check "every rate --json document validates (tests/contract/validate-verdicts.py)" python3 "$SRCDIR/tests/contract/validate-verdicts.py" \
	"$TMP"/{base,flags,dq-acs,dq-gpudirect,dq-older-gpus,dq-no-soc2,dq-billing,dq-two,not-assessed,missing,duplicate,unavailable,att-only,underperforming,hgx-2h,nvl72-return,nvl72-kept-off,hang,lifecycle-bad,quick,malformed,alt,cmp,run,out,odd}.json "$TMP/strict.out"
# --- property: extreme values at every figure rate reads; every output validates,
# every impossible value is named and unscored, a broken timeline is 65 with one line.
# The evidence is base without its audit (smaller documents, every figure item still fed).
mkdir -p "$TMP/prop"
cp "$TMP/base"/*.json "$TMP/base/attestation.yaml" "$TMP/prop/" && rm -f "$TMP/prop/audit.json"
python3 - "$CMAX" "$TMP/prop" "$TMP/propout" >"$TMP/prop.tap" 2>"$TMP/prop.err" <<'PY'
import copy, json, os, shutil, subprocess, sys
cmax, src, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
# (file, row id or None for a document-level value, dotted path) of every figure the rubric reads
targets = [("bench-lifecycle.json", "bench.lifecycle-import-torch-1", "observed.cold_s"),
           ("bench-lifecycle.json", "bench.lifecycle-vllm-ready", "observed.ready_s"),
           ("bench-lifecycle.json", "bench.lifecycle-download", "observed.gb_s"),
           ("bench-storage.json", "bench.storage-seq-read-1m-direct-c1", "observed.bw_gb_s"),
           ("bench-storage-endurance.json", "bench.storage-endurance-seq-mixed-c1", "observed.degradation_pct"),
           ("bench-net.json", "bench.net-nccl-alltoall-n16", "observed.busbw_line_ratio"),
           ("bench-net.json", "bench.net-perftest-write-mlx5_0", "observed.line_ratio"),
           ("inject-xid79.json", None, "timeline.times.detect_s"),
           ("inject-xid79.json", None, "timeline.times.usable_s"),
           ("reboot-gpu018.json", None, "events.4.offset_s")]
# values, and whether each is a possible measurement of the quantities above (a degradation may be
# negative: bandwidth that rose under load)
values = [(-100, False), (0, True), (-0.0, True), (1e308, False), (1e15, False), ("NaN", False),
          ("Infinity", False), (True, False), ({}, False), (None, True)]
def put(doc, rid, path, v):
    o = [r for r in doc["results"] if r["id"] == rid][0] if rid else doc
    keys = path.split(".")
    for k in keys[:-1]:
        o = o[int(k)] if isinstance(o, list) else o[k]
    o[int(keys[-1]) if isinstance(o, list) else keys[-1]] = v
docs, bad, n = [], [], 0
d = os.path.join(out, "case")
shutil.copytree(src, d)
for fn, rid, path in targets:
    text = open(os.path.join(src, fn)).read()
    orig = json.loads(text)
    for v, possible in values:
        if fn.startswith("bench-storage-endurance") and isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            possible = True
        n += 1
        doc = copy.deepcopy(orig)
        put(doc, rid, path, v)
        json.dump(doc, open(os.path.join(d, fn), "w"))
        p = subprocess.run([cmax, "rate", d, "--json"], capture_output=True, text=True)
        open(os.path.join(d, fn), "w").write(text)
        what = "%s %s=%r" % (fn, path, v)
        errlines = p.stderr.strip().splitlines()
        docfig = rid is None and path.startswith("events.")
        if p.returncode == 65:
            if possible or not docfig or len(errlines) != 1 or path not in p.stderr:
                bad.append("%s: exit 65 (%s)" % (what, p.stderr.strip()[:200]))
            continue
        if p.returncode != 0 or errlines:
            bad.append("%s: exit %d (%s)" % (what, p.returncode, p.stderr.strip()[:200]))
            continue
        try:
            r = json.loads(p.stdout)
        except ValueError as e:
            bad.append("%s: output is not JSON (%s)" % (what, e))
            continue
        of = os.path.join(out, "out%d.json" % n)
        open(of, "w").write(p.stdout)
        docs.append(of)
        named = [m for m in r["malformed"] if m["file"].endswith("/" + fn) and m["path"] == path]
        if not possible and not named and v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and docfig):
            bad.append("%s: impossible, but not named as malformed" % what)
        if possible and named:
            bad.append("%s: a possible value named malformed (%s)" % (what, named[0]["why"]))
        for m in named:
            for c in r["categories"]:
                for it in c["items"]:
                    for row in it.get("rows", []):
                        if row["id"] == m["row"] and row["file"] == m["file"] and row["counted"]:
                            bad.append("%s: malformed row %s counted in %s" % (what, m["row"], it["id"]))
print("ok property: %d extreme values through cmax rate, each rated or refused as it must be" % n if not bad
      else "not ok property: extreme values (%d problems: %s)" % (len(bad), "; ".join(bad[:5])))
# one comparison with a provider holding malformed evidence
bad_inject = json.load(open(os.path.join(d, "inject-xid79.json")))
put(bad_inject, None, "timeline.times.detect_s", -5)
json.dump(bad_inject, open(os.path.join(d, "inject-xid79.json"), "w"))
p = subprocess.run([cmax, "rate", "--compare", src, d, "--json"], capture_output=True, text=True)
open(os.path.join(out, "cmp.json"), "w").write(p.stdout)
docs.append(os.path.join(out, "cmp.json"))
print("ok property: --compare with a malformed provider exits 0" if p.returncode == 0 else "not ok property: --compare exit %d" % p.returncode)
v = subprocess.run([sys.executable, os.path.join(os.environ["SRCDIR"], "tests/contract/validate-verdicts.py")] + docs,
                   capture_output=True, text=True)
print("ok property: all %d outputs validate against the schemas and invariants" % len(docs) if v.returncode == 0
      else "not ok property: outputs that do not validate: %s" % v.stdout.strip().replace("\n", " | ")[:600])
PY
check "property: the driver ran to its end$(head -c 300 "$TMP/prop.err" | tr '\n' ' ')" test "$(wc -l <"$TMP/prop.tap")" = 3
while IFS= read -r line; do case $line in "ok "*) ok "${line#ok }" ;; *) not_ok "${line#not ok }" ;; esac; done <"$TMP/prop.tap"
done_testing
