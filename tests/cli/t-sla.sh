#!/usr/bin/env bash
# cmax sla on the hand-computed fixtures of tests/fixtures/sla (the README
# there has every figure and how it was computed): NVL64+ at 2 and 3 trays
# down at once and 3 trays down one after the other, overlapping and
# duplicate records, an exclusion window cutting an outage, a node that
# never came back, records outside the period, malformed lines listed,
# unsorted input, an HGX cluster with its credits at each level and a
# termination threshold crossed, and every input format parsed. Text and
# --json; usage and input errors with their exit codes.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
FX=$SRCDIR/tests/fixtures/sla
cd "$FX" || exit 1
NV="--layout nvl72/layout.yaml --period 2026-11"
HG="--layout hgx/layout.json --period 2026-11"
FM="--nodes gpu[001-008] --system hgx --period 2026-11"

rc_of() { "$CMAX" sla "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }
# jv FILE EXPR...: one line per Python expression over the document d
jv() {
	local f=$1; shift
	"$PY" - "$f" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def unit(scope, name):
    return [u for u in d["units"][scope] if u["name"] == name][0]
def issues(kind):
    return d["issues"][kind]
def result(rid):
    return [r for r in d["results"] if r["id"] == rid][0]["status"]
for e in sys.argv[2:]:
    try:
        print(json.dumps(eval(e), sort_keys=True))
    except Exception as x:
        print("ERROR %s: %s" % (e, x))
EOF
}
# expect FILE 'desc' EXPR WANT ...: one check per (expression, wanted value)
expect() {
	local f=$1; shift
	local descs=() exprs=() wants=()
	while [ $# -ge 3 ]; do descs+=("$1"); exprs+=("$2"); wants+=("$3"); shift 3; done
	mapfile -t got < <(jv "$f" "${exprs[@]}")
	for i in "${!exprs[@]}"; do
		if [ "${got[$i]}" = "${wants[$i]}" ]; then
			ok "${descs[$i]}"
		else
			not_ok "${descs[$i]} (${exprs[$i]}: got ${got[$i]}, want ${wants[$i]})"
		fi
	done
}

# --- usage: 64
check "no arguments: 64" test "$(rc_of)" = 64
check "says what is missing" grep -q "name at least one history file" "$TMP/err"
check "--help: 0" test "$(rc_of --help)" = 0
for o in --events --format --layout --nodes --system --nodes-per-rack --racks-per-cluster --clusters-per-site \
	--gpus-per-node --customer-users --level --levels --exclusions --period --from --to --price-per-gpu-hour \
	--time-offset --json --output-file --verbose; do
	grep -q -- "$o" "$TMP/out" || not_ok "--help lists $o"
done
ok "--help lists every option"
check "no layout: 64" test "$(rc_of --events nvl72/two-trays.csv --period 2026-11)" = 64
check "no period: 64" test "$(rc_of --events nvl72/two-trays.csv --layout nvl72/layout.yaml)" = 64
check "bad --period: 64" test "$(rc_of --events nvl72/two-trays.csv $NV --period 2026-13)" = 64
check "--period and --from: 64" test "$(rc_of --events nvl72/two-trays.csv $NV --from 2026-11-01)" = 64
check "--to before --from: 64" test "$(rc_of --events x --layout l --from 2026-11-02 --to 2026-11-01)" = 64
check "--layout with --nodes: 64" test "$(rc_of --events nvl72/two-trays.csv $NV --nodes 'a[1-2]' --system hgx)" = 64
check "--nodes without --system: 64" test "$(rc_of --events x --nodes 'a[1-2]' --period 2026-11)" = 64
check "bad --format: 64" test "$(rc_of --events x $NV --format xml)" = 64
check "bad --system: 64" test "$(rc_of --events x --nodes a --system dgx --period 2026-11)" = 64
check "unknown level: 64" test "$(rc_of --events nvl72/two-trays.csv $NV --level platinum)" = 64
check "names the levels" grep -q "bronze, silver, gold" "$TMP/err"
check "bad --time-offset: 64" test "$(rc_of --events x $NV --time-offset 5)" = 64
check "unknown option: 64" test "$(rc_of --frobnicate)" = 64

# --- files: 66 missing, 65 unreadable, 73 unwritable; one line on stderr
check "missing history file: 66" test "$(rc_of --events "$TMP/nope.psv" $NV)" = 66
check "missing layout: 66" test "$(rc_of --events nvl72/two-trays.csv --layout "$TMP/nope.yaml" --period 2026-11)" = 66
check "missing levels file: 66" test "$(rc_of --events nvl72/two-trays.csv $NV --levels "$TMP/nope.json")" = 66
printf 'hello\nworld\n' >"$TMP/garbage.txt"
check "unknown format: 65" test "$(rc_of --events "$TMP/garbage.txt" $NV)" = 65
check "one line saying so" test "$(wc -l <"$TMP/err")" = 1
check "and how to fix it" grep -q "name it with --format" "$TMP/err"
check "JSON read as CSV: 65" test "$(rc_of --events formats/events.json $NV --format csv)" = 65
printf 'Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\nx|y|z|w|v|u|t\n' >"$TMP/bad.psv"
check "sacctmgr with no readable line: 65" test "$(rc_of --events "$TMP/bad.psv" $NV)" = 65
printf 'system: hgx\nracks: [{name: a, nodes: "n[1-2]"}, {name: b, nodes: n2}]\n' >"$TMP/dup.yaml"
check "bad layout (a node twice): 65" test "$(rc_of --events nvl72/two-trays.csv --layout "$TMP/dup.yaml" --period 2026-11)" = 65
check "names the node" grep -q "node n2 appears twice" "$TMP/err"
echo '{"version": 1, "levels": []}' >"$TMP/levels.json"
check "bad levels file: 65" test "$(rc_of --events nvl72/two-trays.csv $NV --levels "$TMP/levels.json")" = 65
sed 's/"default_level": "silver"/"default_level": "platinum"/' "$SRCDIR/data/sla-levels.json" >"$TMP/levels2.json"
check "default_level not a level: 65" test "$(rc_of --events nvl72/two-trays.csv $NV --levels "$TMP/levels2.json")" = 65
printf 'windows:\n  - {start: "2026-11-02T00:00:00Z", end: "2026-11-01T00:00:00Z", kind: maintenance}\n' >"$TMP/excl.yaml"
check "bad exclusions: 65" test "$(rc_of --events nvl72/two-trays.csv $NV --exclusions "$TMP/excl.yaml")" = 65
check "says which window" grep -q "excl.yaml#/windows/0: end is not after start" "$TMP/err"
check "unwritable output: 73" test "$(rc_of --events nvl72/two-trays.csv $NV --output-file /nonexistent/dir/x)" = 73

# --- NVL64+: 2 trays at once, rack up
check "two trays: 0" test "$(rc_of --events nvl72/two-trays.csv $NV --json)" = 0
cp "$TMP/out" "$TMP/two.json"
expect "$TMP/two.json" \
	"schema" 'd["schema"]' '"cmax.sla/1"' \
	"two trays: gb-r01-n01 down 6 h" 'unit("node","gb-r01-n01")["downtime_s"]' 21600 \
	"two trays: gb-r01-n02 down 6 h" 'unit("node","gb-r01-n02")["downtime_s"]' 21600 \
	"two trays: rack r01 NOT down" 'unit("rack","r01")["downtime_s"]' 0 \
	"NVL64+ threshold: 3 trays" 'unit("rack","r01")["down_when"]' '{"nodes": 3}' \
	"two trays: no rack down at all" 'd["summary"]["rack"]["with_downtime"]' 0 \
	"period: 720 h" 'd["period"]["seconds"]' 2592000 \
	"layout: 72 nodes, 288 GPUs" '[d["layout"]["nodes"], d["layout"]["gpus"]]' '[72, 288]'

# --- NVL64+: 3 trays at once, rack down exactly that span
check "three trays: 0" test "$(rc_of --events nvl72/three-trays.csv $NV --json)" = 0
cp "$TMP/out" "$TMP/three.json"
expect "$TMP/three.json" \
	"three trays: rack r02 down 5400 s" 'unit("rack","r02")["downtime_s"]' 5400 \
	"from 02:00" 'unit("rack","r02")["intervals"][0]["start"]' '"2026-11-10T02:00:00Z"' \
	"to 03:30" 'unit("rack","r02")["intervals"][0]["end"]' '"2026-11-10T03:30:00Z"' \
	"the three trays named" 'unit("rack","r02")["intervals"][0]["down"]' '["gb-r02-n01", "gb-r02-n02", "gb-r02-n03"]' \
	"by the nodes rule" 'unit("rack","r02")["intervals"][0]["rules"]' '["nodes"]' \
	"traced to the three lines" 'unit("rack","r02")["intervals"][0]["sources"]' '["nvl72/three-trays.csv:2", "nvl72/three-trays.csv:3", "nvl72/three-trays.csv:4"]' \
	"rack availability 1 - 5400/2592000" 'unit("rack","r02")["availability_pct"]' 99.791667 \
	"other racks up" '[unit("rack",r)["downtime_s"] for r in ("r01","r03","r04")]' '[0, 0, 0]' \
	"the cluster stays up (1 of 4 racks)" 'unit("cluster","gb200-a")["downtime_s"]' 0 \
	"unsorted input: gb-r02-n03 1h30" 'unit("node","gb-r02-n03")["downtime_s"]' 5400
check "three trays text: 0" test "$(rc_of --events nvl72/three-trays.csv $NV)" = 0
check "text: the rack line" grep -qE '^rack +4 +1  r02 +1h 30m 00s +99\.7917%' "$TMP/out"
check "text: the NVL64+ rule named" grep -q "r02 .*down: 3 of 18 nodes at once, NVL64+" "$TMP/out"

# --- 3 trays, never at the same time
check "three apart: 0" test "$(rc_of --events nvl72/three-apart.csv $NV --json)" = 0
expect "$TMP/out" \
	"three apart: rack r01 NOT down" 'unit("rack","r01")["downtime_s"]' 0 \
	"three apart: each tray 1 h" '[unit("node","gb-r01-n0%d" % i)["downtime_s"] for i in (3,4,5)]' '[3600, 3600, 3600]'

# --- sacctmgr, overlaps, exclusions, never came back, outside, malformed, unsorted (Silver)
NVX="--events nvl72/events.psv $NV --exclusions nvl72/exclusions.yaml"
check "sacctmgr: 0 (credits owed is no error)" test "$(rc_of $NVX --json)" = 0
cp "$TMP/out" "$TMP/psv.json"
expect "$TMP/psv.json" \
	"read as sacctmgr" 'd["inputs"][0]["format"]' '"sacctmgr"' \
	"level silver by default" 'd["level"]["name"]' '"silver"' \
	"overlap and duplicate: gb-r03-n01 10:00 .. 13:00" 'unit("node","gb-r03-n01")["downtime_s"]' 10800 \
	"  one interval" 'len(unit("node","gb-r03-n01")["intervals"])' 1 \
	"  two records merged" 'unit("node","gb-r03-n01")["intervals"][0]["merged"]' 2 \
	"  all three lines traced" 'unit("node","gb-r03-n01")["intervals"][0]["sources"]' '["nvl72/events.psv:4", "nvl72/events.psv:6", "nvl72/events.psv:2"]' \
	"never came back: 36 h" 'unit("node","gb-r04-n02")["downtime_s"]' 129600 \
	"  flagged" 'unit("node","gb-r04-n02")["intervals"][0]["never_came_back"]' true \
	"  listed" '[i["source"] for i in issues("never_came_back")]' '["nvl72/events.psv:3"]' \
	"started before the period: 2 h inside" 'unit("node","gb-r04-n04")["downtime_s"]' 7200 \
	"ended after the period: 1 h inside" 'unit("node","gb-r04-n05")["downtime_s"]' 3600 \
	"clipped listed" 'len(issues("clipped"))' 2 \
	"outside the period listed" '[i["source"] for i in issues("outside_period")]' '["nvl72/events.psv:5"]' \
	"exclusion cuts the outage: 4 h of 6 counted" 'unit("node","gb-r03-n02")["downtime_s"]' 14400 \
	"  the cut 04:00 .. 06:00" '[unit("node","gb-r03-n02")["intervals"][0]["excluded"][0][k] for k in ("start","end","seconds")]' '["2026-11-20T04:00:00Z", "2026-11-20T06:00:00Z", 7200]' \
	"  by the maintenance window" '[w["source"] for w in unit("node","gb-r03-n02")["intervals"][0]["excluded"][0]["windows"]]' '["nvl72/exclusions.yaml#/windows/0"]' \
	"  eligible: period minus 6 h" 'unit("node","gb-r03-n02")["eligible_s"]' 2570400 \
	"upgrade window accepted at silver: 1 h of 2" 'unit("node","gb-r04-n01")["downtime_s"]' 3600 \
	"host list in NodeName: 2 nodes" '[unit("node",n)["downtime_s"] for n in ("gb-r02-n10","gb-r02-n11")]' '[3600, 3600]' \
	"malformed lines listed with file:line" '[m["source"] for m in d["issues"]["malformed"]]' '["nvl72/events.psv:11", "nvl72/events.psv:12", "nvl72/events.psv:18"]' \
	"  and why" 'd["issues"]["malformed"][2]["why"]' '"TimeEnd 2026-11-06T04:00:00 is before TimeStart 2026-11-06T05:00:00"' \
	"unknown node listed" '[i["node"] for i in issues("unknown_node")]' '["login01"]' \
	"customer drain not counted" '[i["node"] for i in issues("customer_initiated")]' '["gb-r04-n06"]' \
	"unmapped state listed" '[i["state"] for i in issues("unmapped_state")]' '["WEIRD"]' \
	"cluster TRES record is no outage" 'len(issues("cluster_record"))' 1 \
	"firmware window refused" '[i["source"] for i in issues("exclusion_not_accepted")]' '["nvl72/exclusions.yaml#/windows/2"]' \
	"  and marked not applied" '[w["applied"] for w in d["exclusions"]]' '[true, true, false]' \
	"gb-r04-n02 availability 1 - 129600/2584800" 'unit("node","gb-r04-n02")["availability_pct"]' 94.986072 \
	"  tier < 95: 25 %" 'unit("node","gb-r04-n02")["credit_pct"]' 25.0 \
	"credits: 720 GPU-hours" 'd["credits"]["gpu_hours"]' 720.0 \
	"  0.347222 % of the fee" 'd["credits"]["pct_of_fee"]' 0.347222 \
	"  only gb-r04-n02" '[(n["node"], n["credit_pct"], n["from"]) for n in d["credits"]["nodes"]]' '[["gb-r04-n02", 25.0, "node"]]' \
	"  no money without a price" 'd["credits"]["amount"]' null \
	"one node below target" 'd["summary"]["node"]["below_target"]' 1 \
	"racks, cluster, site up" '[d["summary"][s]["downtime_s"] for s in ("rack","cluster","site")]' '[0, 0, 0]' \
	"cluster excluded only in the all-node window" 'unit("cluster","gb200-a")["excluded_s"]' 7200 \
	"result rows" '[result(r) for r in ("sla.availability.node","sla.availability.rack","sla.termination","sla.inputs")]' '["FAIL", "PASS", "PASS", "WARN"]' \
	"levels compared: GPU-hours" '[(l["name"], l["credits"]["gpu_hours"]) for l in d["levels"]]' '[["bronze", 144.0], ["silver", 720.0], ["gold", 720.0]]'
check "sacctmgr gold: 0" test "$(rc_of $NVX --json --level gold)" = 0
expect "$TMP/out" \
	"gold: upgrades not accepted: gb-r04-n01 2 h" 'unit("node","gb-r04-n01")["downtime_s"]' 7200 \
	"gold: gb-r04-n02 exactly 95 %" 'unit("node","gb-r04-n02")["availability_pct"]' 95.0 \
	"gold: at 95.0 the < 95 tier does not apply: 25 %" 'unit("node","gb-r04-n02")["credit_pct"]' 25.0 \
	"gold: two windows refused" 'len(issues("exclusion_not_accepted"))' 2
check "sacctmgr text: 0" test "$(rc_of $NVX -v)" = 0
check "text: gb-r04-n02 worst node" grep -qE '^node +72 +8  gb-r04-n02 +1d 12h 00m 00s +94\.9861% +98% +1 +25%' "$TMP/out"
check "text: credits line" grep -q "credits: 0.3472% of the period's fee .* 720.000 GPU-hours" "$TMP/out"
check "text -v: the cut and its window" grep -q "excluded 2026-11-20T04:00:00Z .. 2026-11-20T06:00:00Z (2h 00m 00s) by maintenance nvl72/exclusions.yaml#/windows/0" "$TMP/out"
check "text -v: sources" grep -q "nvl72/events.psv:3  gb-r04-n02 DOWN\* \"Not responding\"" "$TMP/out"
check "text: malformed listed" grep -q "malformed  *nvl72/events.psv:12: 3 fields, the header has 7" "$TMP/out"
check "text: never came back listed" grep -q "never_came_back *nvl72/events.psv:3" "$TMP/out"
check "--time-offset +01:00: zone-less times moved" test "$(rc_of $NVX --json --time-offset +01:00)" = 0
expect "$TMP/out" "  gb-r04-n04 22:00+01 .. 02:00+01: 1 h inside" 'unit("node","gb-r04-n04")["downtime_s"]' 3600

# --- HGX, slurmctld.log: credits at each level, termination at gold
for lv in bronze:10.0:9216.0:23040.0:false silver:25.0:23040.0:57600.0:false gold:100.0:92160.0:230400.0:true; do
	IFS=: read -r name pct gpuh amount term <<<"$lv"
	check "hgx $name: 0" test "$(rc_of --events hgx/slurmctld.log $HG --level "$name" --price-per-gpu-hour 2.5 --json)" = 0
	expect "$TMP/out" \
		"hgx $name: credit $pct % of the fee" 'd["credits"]["pct_of_fee"]' "$pct" \
		"hgx $name: $gpuh GPU-hours" 'd["credits"]["gpu_hours"]' "$gpuh" \
		"hgx $name: $amount at 2.5" 'd["credits"]["amount"]' "$amount" \
		"hgx $name: termination crossed $term" 'd["termination"]["crossed"]' "$term"
done
expect "$TMP/out" \
	"hgx: read as a slurmctld log" 'd["inputs"][0]["format"]' '"slurmctld-log"' \
	"hgx: h001 down 50 h" 'unit("node","h001")["downtime_s"]' 180000 \
	"hgx: h002 10 h" 'unit("node","h002")["downtime_s"]' 36000 \
	"hgx: h016 drained 3 h (Xid 79)" '[unit("node","h016")["downtime_s"], unit("node","h016")["intervals"][0]["reasons"]]' '[10800, ["Xid 79"]]' \
	"hgx: customer drain of h012 not counted" '[unit("node","h012")["downtime_s"], len(issues("customer_initiated"))]' '[0, 1]' \
	"hgx: racks ra01, ra02 down 10 h (all 4 nodes)" '[unit("rack",r)["downtime_s"] for r in ("ra01","ra02","ra03","ra04")]' '[36000, 36000, 0, 0]' \
	"hgx: cluster down 10 h by racks and nodes" '[unit("cluster","h100-a")["downtime_s"], unit("cluster","h100-a")["intervals"][0]["rules"]]' '[36000, ["nodes", "racks"]]' \
	"hgx: site down 10 h" 'unit("site","iad1")["availability_pct"]' 98.611111 \
	"hgx gold: site tier 100 %" 'unit("site","iad1")["credit_pct"]' 100.0 \
	"hgx gold: the site threshold crossed" '[(r["scope"], r["crossed"], [u["name"] for u in r["units"]]) for r in d["termination"]["rules"]]' '[["cluster", false, []], ["site", true, ["iad1"]]]' \
	"hgx gold: 8 nodes below 99 %" 'd["summary"]["node"]["below_target"]' 8 \
	"hgx gold: termination row FAIL" 'result("sla.termination")' '"FAIL"' \
	"hgx: the line without a time stamp listed" '[m["source"] for m in d["issues"]["malformed"]]' '["hgx/slurmctld.log:13"]' \
	"hgx: bronze, silver, gold compared" '[(l["name"], l["termination_crossed"]) for l in d["levels"]]' '[["bronze", false], ["silver", false], ["gold", true]]'
check "hgx text: 0" test "$(rc_of --events hgx/slurmctld.log $HG --level gold --price-per-gpu-hour 2.5)" = 0
check "text: termination CROSSED with the unit" grep -q "termination: CROSSED (cluster below 97%, site below 99%: iad1 at 98.6111%)" "$TMP/out"
check "text: money" grep -q "92160.000 GPU-hours = 230400.00 at 2.5 per GPU-hour" "$TMP/out"
# --output-file means what it means for every command: also the JSON document there
check "--output-file: 0" test "$(rc_of --events hgx/slurmctld.log $HG --output-file "$TMP/report.json")" = 0
check "  the text report on stdout" grep -q "termination: " "$TMP/out"
expect "$TMP/report.json" "  the file has the JSON document" 'd["schema"]' '"cmax.sla/1"'
check "--json --output-file: 0" test "$(rc_of --events hgx/slurmctld.log $HG --json --output-file "$TMP/report2.json")" = 0
check "  the same document in the file and on stdout" cmp -s "$TMP/out" "$TMP/report2.json"

# --- every input format
check "k8s events: 0" test "$(rc_of --events formats/k8s-events.json $FM --json)" = 0
expect "$TMP/out" \
	"k8s events: detected" 'd["inputs"][0]["format"]' '"k8s-events"' \
	"k8s events: NotReady .. NodeReady 45 min" 'unit("node","gpu001")["downtime_s"]' 2700 \
	"k8s events: cordon .. uncordon 90 min" 'unit("node","gpu002")["downtime_s"]' 5400 \
	"k8s events: still NotReady at the end: 4 h" 'unit("node","gpu003")["downtime_s"]' 14400 \
	"k8s events: the event without a time listed" '[m["source"] for m in d["issues"]["malformed"]]' '["formats/k8s-events.json#/items/8"]' \
	"k8s events: Rebooted and the aggregated event noted" 'len(d["issues"]["notes"])' 2
check "k8s nodes: 0" test "$(rc_of --events formats/k8s-nodes.json $FM --json)" = 0
expect "$TMP/out" \
	"k8s nodes: detected" 'd["inputs"][0]["format"]' '"k8s-nodes"' \
	"k8s nodes: NotReady since lastTransitionTime" 'unit("node","gpu004")["downtime_s"]' 5400 \
	"k8s nodes: cordoned since the taint" 'unit("node","gpu006")["downtime_s"]' 3600 \
	"k8s nodes: cordoned without a time: not counted" 'unit("node","gpu007")["downtime_s"]' 0 \
	"k8s nodes: Ready Unknown counted" 'unit("node","gpu008")["downtime_s"]' 900
check "inject timeline: 0" test "$(rc_of --events formats/inject.json $FM --json)" = 0
expect "$TMP/out" \
	"inject: detected" 'd["inputs"][0]["format"]' '"cmax-timeline"' \
	"inject: drained .. returned 35 min" 'unit("node","gpu001")["downtime_s"]' 2100 \
	"inject: ms kept" 'unit("node","gpu001")["intervals"][0]["start"]' '"2026-11-07T12:00:06.500Z"'
check "reboot-test timeline: 0" test "$(rc_of --events formats/reboot.json $FM --json)" = 0
expect "$TMP/out" "reboot-test: requested .. back 7 min 30" 'unit("node","gpu002")["downtime_s"]' 450
check "CSV: 0" test "$(rc_of --events formats/events.csv $FM --json)" = 0
expect "$TMP/out" \
	"CSV: detected" 'd["inputs"][0]["format"]' '"csv"' \
	"CSV: quoted comma" '[unit("node","gpu005")["downtime_s"], unit("node","gpu005")["intervals"][0]["reasons"]]' '[3600, ["PSU fault, replaced"]]' \
	"CSV: offsets, empty state = DOWN" '[unit("node","gpu006")["intervals"][0]["start"], unit("node","gpu006")["intervals"][0]["states"]]' '["2026-11-09T01:00:00Z", ["DOWN"]]' \
	"CSV: empty end = still down" 'unit("node","gpu007")["downtime_s"]' 3600 \
	"CSV: 2 malformed" '[m["source"] for m in d["issues"]["malformed"]]' '["formats/events.csv:6", "formats/events.csv:7"]'
check "JSON events: 0" test "$(rc_of --events formats/events.json $FM --json)" = 0
expect "$TMP/out" \
	"JSON: detected" 'd["inputs"][0]["format"]' '"json"' \
	"JSON: host list, open" '[unit("node",n)["downtime_s"] for n in ("gpu007","gpu008")]' '[2400, 2400]' \
	"JSON: a rack event downs the rack" '[unit("rack","rack02")["downtime_s"], unit("rack","rack02")["intervals"][0]["rules"]]' '[600, ["event", "nodes"]]' \
	"JSON: the bad entry listed" '[m["source"] for m in d["issues"]["malformed"]]' '["formats/events.json#/events/2"]'
check "all six formats at once: 0" test "$(rc_of formats/k8s-events.json formats/k8s-nodes.json formats/inject.json formats/reboot.json formats/events.csv formats/events.json $FM --json)" = 0
expect "$TMP/out" \
	"six inputs" '[i["format"] for i in d["inputs"]]' '["k8s-events", "k8s-nodes", "cmax-timeline", "cmax-timeline", "csv", "json"]' \
	"gpu001: k8s 2700 + inject 2100" 'unit("node","gpu001")["downtime_s"]' 4800 \
	"gpu006: 1800 + 1800 + 600 + 3600" 'unit("node","gpu006")["downtime_s"]' 7800

# --- a custom level file, another levels file
cat >"$TMP/platinum.yaml" <<'EOF'
name: platinum
targets: {node: 99.99}
credits:
  node: [{below: 99.99, credit_pct: 40}]
exclusions_accepted: []
EOF
check "custom level file: 0" test "$(rc_of --events nvl72/three-trays.csv $NV --level "$TMP/platinum.yaml" --json)" = 0
expect "$TMP/out" \
	"custom level used" 'd["level"]["name"]' '"platinum"' \
	"three trays below 99.99: 40 % each" '[n["node"] for n in d["credits"]["nodes"]]' '["gb-r02-n01", "gb-r02-n02", "gb-r02-n03"]' \
	"  3 x 40 % x 4 GPUs x 720 h" 'd["credits"]["gpu_hours"]' 3456.0
check "--levels FILE --level NAME: 0" test "$(rc_of --events nvl72/three-trays.csv $NV --levels "$SRCDIR/data/sla-levels.json" --level bronze --json)" = 0
expect "$TMP/out" "bronze from the named file" 'd["level"]["name"]' '"bronze"'
check "--nodes shorthand: 0" test "$(rc_of --events nvl72/three-trays.csv --nodes 'gb-r0[1-4]-n[01-18]' --system nvl72 --racks-per-cluster 2 --from 2026-11-10T00:00:00Z --to 2026-11-11T00:00:00Z --json)" = 0
expect "$TMP/out" \
	"shorthand: 4 racks in 2 clusters" '[d["layout"]["racks"], d["layout"]["clusters"]]' '[4, 2]' \
	"shorthand: rack02 down 1h30 of a 24 h period" '[unit("rack","rack02")["downtime_s"], unit("rack","rack02")["availability_pct"]]' '[5400, 93.75]'
# --- the documents above (three rerun: they went to $TMP/out) and one with availability unknown
# (r02 excluded the whole month) against docs/schema/sla.schema.json and what a schema cannot say
"$CMAX" sla --events hgx/slurmctld.log $HG --level gold --price-per-gpu-hour 2.5 --json >"$TMP/gold.json"
"$CMAX" sla formats/k8s-events.json formats/k8s-nodes.json formats/inject.json formats/reboot.json formats/events.csv formats/events.json $FM --json >"$TMP/six.json"
"$CMAX" sla --events nvl72/three-trays.csv $NV --level "$TMP/platinum.yaml" --json >"$TMP/platinum.json"
printf 'windows: [{start: "2026-10-01T00:00:00Z", end: "2026-12-02T00:00:00Z", kind: maintenance, scope: r02}]\n' >"$TMP/month.yaml"
"$CMAX" sla --events nvl72/three-trays.csv $NV --exclusions "$TMP/month.yaml" --json >"$TMP/unknown.json"
# --- impossible records (tests/fixtures/sla/extreme.py): times before 2000 or from 2100 on, intervals of
# more than ten years, timeline seconds of 1e308 or below 0, in every input format: listed as malformed
# with their source, never counted; only the one good record's hour is downtime
X=$TMP/extreme
"$PY" "$FX/extreme.py" "$X"
(cd "$X" && for f in extreme.csv extreme.json extreme.psv extreme.log extreme-k8s.json \
	"extreme-inject-good.json extreme-inject-huge.json extreme-inject-negative.json extreme-reboot.json"; do
	# shellcheck disable=SC2086 # the last entry is four files of one run
	"$CMAX" sla $f --nodes 'gpu[001-004]' --system hgx --period 2026-11 --json >"out-${f%% *}.out" 2>>errors
	echo "$f $?" >>rcs
done)
check "impossible records: every run exits 0" test "$(awk '$NF != 0' "$X/rcs")" = ""
diag <"$X/errors"
check "impossible records: listed as malformed with their source, not counted" "$PY" "$FX/extreme.py" --check "$X" "$X"/out-*.out
check "every sla --json document validates (tests/contract/validate-verdicts.py)" "$PY" "$SRCDIR/tests/contract/validate-verdicts.py" \
	"$TMP"/{two,three,psv,report,report2,gold,six,platinum,unknown}.json "$TMP/out" "$X"/out-*.out
done_testing
