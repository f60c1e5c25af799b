#!/usr/bin/env bash
# data/monitoring: the health agent's Prometheus alerting rules and Grafana
# dashboard (docs/monitoring.md; cmax issue 14).
#
#  - promtool check rules and promtool test rules (each alert firing and, at
#    its boundary, not firing: cmax-health.rules.test.yml);
#  - the dashboard is JSON with unique panel ids, a datasource and a node
#    variable, every panel on ${datasource} and $node;
#  - every metric name the rules (expr and annotation query templates) and
#    the dashboard (targets, variables) select is one the built agent
#    really writes: `cmax health check` runs on a kernel log with an Xid 79,
#    an Xid 13 and an SXid, no scontrol (a drain that fails, pending) and
#    a squeue (fakecmd) that lists one running job (the affected jobs), and
#    its textfile is parsed (no list of names here); promtool check
#    metrics accepts that text; a name the agent does not write is caught;
#  - with a real Prometheus (Debian's prometheus): it scrapes `cmax health
#    watch --listen` and loads the rules; every dashboard query, $node
#    substituted, parses and returns series through /api/v1/query, every
#    rule evaluates without error, and the alerts the agent's state calls
#    for fire with the node and the failing component named.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
MON=$SRCDIR/data/monitoring
RULES=$MON/cmax-health.rules.yml
DASH=$MON/cmax-health.dashboard.json
H="$PY $SRCDIR/tests/cli/monitoring.py"
. "$SRCDIR/tests/slurm/ports.sh"
WPID= PPID_=
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; [ -n "$PPID_" ] && kill "$PPID_" 2>/dev/null; wait; ports_release; rm -rf "$TMP"' EXIT
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done
}
mkdir -p "$TMP/empty" "$TMP/agent"
cat >"$TMP/k.log" <<'EOF'
2026-11-30T05:40:36+0000 node1 kernel: NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
2026-11-30T05:45:00+0000 node1 kernel: NVRM: Xid (PCI:0000:5a:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0)
2026-11-30T05:46:00+0000 node1 kernel: nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 48 LTSSM Fault Up
EOF
# squeue alone on PATH: the drain cannot be done, the jobs can be listed
SQ=$TMP/fake/cmd/squeue/1-running
mkdir -p "$SQ"
printf '%s\n' -h -w node1 -t RUNNING -o '%i|%u|%j' >"$SQ/argv"
echo '4242|alice|train-llm' >"$SQ/stdout"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/fake/cmd" "$BUILD/fakecmd" "$TMP/fake/bin" >/dev/null
: >"$TMP/fake/log"
AGENT=(env -i PATH="$TMP/fake/bin" CMAX_FAKE_DIR="$TMP/fake/cmd" CMAX_FAKE_LOG="$TMP/fake/log" CMAX_DATADIR="$SRCDIR/data"
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" health)

# ---- the files ----
check "the rules, their tests and the dashboard are under data/ (installed by install_subdir('data'))" \
	test -f "$RULES" -a -f "$MON/cmax-health.rules.test.yml" -a -f "$DASH"
check "meson.build installs data/ whole" grep -q "^install_subdir('data'" "$SRCDIR/meson.build"
if command -v promtool >/dev/null; then
	check "promtool check rules" sh -c "promtool check rules '$RULES' >'$TMP/pc' 2>&1" || diag <"$TMP/pc"
	check "promtool test rules: every alert fires and stays quiet at its boundary" \
		sh -c "cd '$MON' && promtool test rules cmax-health.rules.test.yml >'$TMP/pt' 2>&1" || diag <"$TMP/pt"
	# the tests can fail: the stale threshold moved by one second is caught
	mkdir -p "$TMP/mut"
	sed 's/^          > 150$/          > 149/' "$RULES" >"$TMP/mut/cmax-health.rules.yml"
	cp "$MON/cmax-health.rules.test.yml" "$TMP/mut/"
	check "  a rule changed at its boundary (stale above 149 s, not 150 s) fails them" sh -c "
		! cmp -s '$RULES' '$TMP/mut/cmax-health.rules.yml' &&
		cd '$TMP/mut' && ! promtool test rules cmax-health.rules.test.yml >/dev/null 2>&1"
else
	skip "promtool not installed (apt-get install prometheus): rules not checked"
	skip "promtool not installed: rule unit tests not run"
	skip "promtool not installed: rule unit tests not checked to fail"
fi
check "the dashboard is JSON: schemaVersion, datasource and node variables, unique panel ids, every panel on \${datasource} and \$node" \
	sh -c "$H dashboard '$DASH' >'$TMP/dp' 2>&1" || diag <"$TMP/dp"
echo '{"schemaVersion": 39, "panels": [{"id": 1, "type": "row"}, {"id": 1, "type": "row"}]}' >"$TMP/dup.json"
$H dashboard "$TMP/dup.json" >"$TMP/dupp"
r=$?
check "  a dashboard with a panel id twice is refused (rc $r)" sh -c "[ $r = 1 ] && grep -q 'panel ids not unique (1)' '$TMP/dupp'"
n=$(grep -c . "$TMP/dupp")
check "  and so is one without its variables ($n problems)" test "$n" -ge 3

# ---- the names: what the agent really writes ----
"${AGENT[@]}" check --node node1 --log-file "$TMP/k.log" --state "$TMP/agent/s.json" --textfile "$TMP/agent" \
	>"$TMP/agent/out" 2>"$TMP/agent/err"
r=$?
check "the agent runs on the fixture: a drain it cannot do (no scontrol): 69 (rc $r)" test "$r" = 69
$H exposed "$TMP/agent/cmax_health.prom" >"$TMP/exposed"
check "  it writes series ($(wc -l <"$TMP/exposed") names)" test "$(wc -l <"$TMP/exposed")" -ge 10
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts the agent's text" \
		sh -c "promtool check metrics <'$TMP/agent/cmax_health.prom' >'$TMP/pm' 2>&1" || diag <"$TMP/pm"
else
	skip "promtool not installed: the agent's text not linted"
fi
# up: Prometheus' own series for each scrape, not the agent's
names_ok() { # FILE: every name it selects is written by the agent (or is up)
	$H names "$1" >"$TMP/used" || return 1
	missing=$(grep -vxF -f "$TMP/exposed" "$TMP/used" | grep -vx up | tr '\n' ' ')
	[ -z "$missing" ]
}
for f in "$RULES" "$DASH"; do
	names_ok "$f"
	check "every metric $(basename "$f") selects is one the agent writes ($(wc -l <"$TMP/used") names${missing:+; not written: $missing})" \
		test -z "$missing"
done
sed 's/cmax_health_source_up$/cmax_health_source_ok/' "$RULES" >"$TMP/typo.rules.yml"
names_ok "$TMP/typo.rules.yml"
check "  a rule on a name the agent does not write is caught (${missing:-nothing})" test "$missing" = "cmax_health_source_ok "
grep -q cmax_health_unhealthy_cause "$TMP/agent/cmax_health.prom" &&
	grep -qF 'cmax_health_unhealthy_cause{cause="pending",kind="Xid",code="79"} 1' "$TMP/agent/cmax_health.prom"
check "the failing component is exported: the pending drain's Xid 79" test $? = 0
check "the affected jobs are exported: the one squeue listed, its count" \
	sh -c "grep -qxF 'cmax_health_affected_job_info{job_id=\"4242\",user=\"alice\"} 1' '$TMP/agent/cmax_health.prom' &&
		grep -qx 'cmax_health_affected_jobs 1' '$TMP/agent/cmax_health.prom' && test ! -s '$TMP/fake/log'"

# ---- a real Prometheus ----
if ! command -v prometheus >/dev/null || ! command -v curl >/dev/null; then
	skip "prometheus or curl not installed (apt-get install prometheus curl): no live queries"
	done_testing
	exit
fi
PORT=$(ports_claim 2) || { not_ok "no free ports"; done_testing; exit 1; }
AP=$PORT PP=$((PORT + 1))
"${AGENT[@]}" watch --node node1 --log-file "$TMP/k.log" --state "$TMP/w.json" --listen 127.0.0.1:$AP --heartbeat 1 \
	>"$TMP/w.out" 2>"$TMP/w.err" &
WPID=$!
mkdir -p "$TMP/prom"
cp "$RULES" "$TMP/prom/"
cat >"$TMP/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - cmax-health.rules.yml
scrape_configs:
  - job_name: cmax-health
    static_configs:
      - targets: ['127.0.0.1:$AP']
EOF
prometheus --config.file="$TMP/prom/prometheus.yml" --storage.tsdb.path="$TMP/prom/data" \
	--web.listen-address=127.0.0.1:$PP >"$TMP/prom/log" 2>&1 </dev/null &
PPID_=$!
API=http://127.0.0.1:$PP/api/v1
q() { curl -s -m 5 --get --data-urlencode "query=$1" "$API/query"; }
# the first scrape comes about 5 s after the start; rates need two samples
scraped() { q 'count_over_time(cmax_health_checks_total[1m]) >= 4' | grep -q '"result":\[{'; }
if ! wait_for 40 scraped; then
	not_ok "Prometheus scrapes the agent (4 samples within 40 s)"
	tail -5 "$TMP/prom/log" | diag
	tail -5 "$TMP/w.err" | diag
	done_testing
	exit 1
fi
ok "Prometheus scrapes the agent's /metrics"
$H queries "$DASH" node1 "$API" >"$TMP/queries"
r=$?
check "every dashboard query (\$node=node1) parses and returns series ($(head -1 "$TMP/queries"))" test "$r" = 0 ||
	tail -n +2 "$TMP/queries" | diag
curl -s -m 5 --get --data-urlencode 'match[]=cmax_health_info' "$API/series" >"$TMP/series"
check "the node variable (label_values(cmax_health_info, node)) offers node1" \
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any(s.get("node") == "node1" for s in d["data"]))' "$TMP/series"
rules_ok() {
	curl -s -m 5 "$API/rules" >"$TMP/rules.json"
	"$PY" -c 'import json,sys
g = json.load(open(sys.argv[1]))["data"]["groups"]
r = [x for grp in g for x in grp["rules"]]
sys.exit(not (len(r) == 8 and all(x["health"] == "ok" and not x["lastEvaluation"].startswith("0001") for x in r)))' "$TMP/rules.json"
}
wait_for 10 rules_ok
check "Prometheus loads the 8 rules and evaluates each without error" rules_ok ||
	"$PY" -c 'import json,sys
for g in json.load(open(sys.argv[1]))["data"]["groups"]:
    for r in g["rules"]: print(r["name"], r["health"], r.get("lastError", ""))' "$TMP/rules.json" | diag
alert() { # NAME: its firing alert (JSON) or nothing
	curl -s -m 5 "$API/alerts" | "$PY" -c 'import json,sys
for a in json.load(sys.stdin)["data"]["alerts"]:
    if a["labels"]["alertname"] == sys.argv[1] and a["state"] == "firing": print(json.dumps(a))' "$1"
}
firing() { alert "$1" | grep -q .; }
wait_for 10 firing CmaxHealthNodeUnhealthy
a=$(alert CmaxHealthNodeUnhealthy)
check "CmaxHealthNodeUnhealthy fires for node1 naming the failing component (GPU, Xid 79, pending) and the action (reboot)" \
	"$PY" -c 'import json,sys
a = json.loads(sys.argv[1]); d = a["annotations"]["description"]
sys.exit(not (a["labels"]["node"] == "node1" and a["labels"]["severity"] == "critical"
              and "Failing component: GPU (Xid 79, pending);" in d and "calls for: reboot." in d))' "${a:-null}"
wait_for 10 firing CmaxHealthActionFailing
a=$(alert CmaxHealthActionFailing)
check "CmaxHealthActionFailing fires: the drain fails on every heartbeat" \
	"$PY" -c 'import json,sys
a = json.loads(sys.argv[1]); sys.exit(not (a["labels"]["action"] == "drain" and a["labels"]["node"] == "node1"))' "${a:-null}"
check "and the agent is neither stale, down nor blind, nor the node drained" \
	test -z "$(alert CmaxHealthAgentStale)$(alert CmaxHealthAgentDown)$(alert CmaxHealthSourceDown)$(alert CmaxHealthNodeDrained)"
done_testing
