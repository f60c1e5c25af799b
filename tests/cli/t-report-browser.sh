#!/usr/bin/env bash
# `cmax report --html` in a real headless Chromium (tests/browser/cdriver.py,
# judged by tests/browser/check_report.py; the harness's own failing pages
# are tests/cli/t-browser-harness.sh). Real runs of the built cmax first:
#   - cmax audit on the misconfig-h100 fixture host (its fake tools),
#   - cmax bench storage with real fio on a small file, quick and endurance,
#   - cmax bench net replaying the 1, 2 and 4 node all-reduce recordings,
#   - cmax inject xid 79 against a real Slurm with `cmax health check` as its
#     HealthCheckProgram (root and slurm-wlm; else the recorded real document
#     of tests/fixtures/rate/real, said in a diag line),
#   - cmax sla on the three-trays fixture, cmax rate on a directory of the
#     runs above and rate --compare against the rate fixture's base provider.
# Each run is then in `cmax runs list --json` (its exported document equal to
# the file); the report is made of the runs (run:ID) and loaded in Chromium:
# at least five charts, each with one x and one y axis label, every mark's
# values the documents' own (worked out by check_report.py from the
# documents, compared as numbers), no console error, no network request, no
# connection to the recording proxy, no script element. A hostile copy of the
# audit and storage documents (markup, quotes, control characters, a
# javascript: URL in host names, summaries, evidence, references and the
# file name) renders as text: no script, no dialog, the literal
# "<script>alert(1)</script>" in the page text, its charts still laid out.
# Screenshots: ${CMAX_ARTIFACTS:-$BUILD/artifacts}/report-*.png.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
PATH=$(dirname "$PY"):$PATH   # the interpreter itself, not a shim that costs a start
B=$SRCDIR/tests/browser
ART=${CMAX_ARTIFACTS:-$BUILD/artifacts}
if [ ! -x "${CMAX_CHROMIUM:-/usr/bin/chromium}" ] || [ ! -x "${CMAX_CHROMEDRIVER:-/usr/bin/chromedriver}" ]; then
	skip "chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"
	done_testing; exit
fi
SLURM_BASE=$TMP/slurm
trap '[ -d "$SLURM_BASE/run" ] && inject_slurm_down "$SLURM_BASE"; rm -rf "$TMP"' EXIT
t_start=$SECONDS
D=$TMP/docs; mkdir -p "$D"
docs=()   # every document the report is made of, in order

# ---- the runs --------------------------------------------------------------

# audit: run_fixture of tap.sh, with the results store of this test (env -i
# there keeps CMAX_HOME out)
host=misconfig-h100 hd=$SRCDIR/tests/fixtures/hosts/misconfig-h100 out=$TMP/audit
mkdir -p "$out/bin" "$out/home"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
# shellcheck disable=SC2046  # the host's env file: one VAR=value a word
(
	cd "$hd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) CMAX_HOME="$CMAX_HOME" \
		CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$SRCDIR/data" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" audit --sysroot root --local --yes --json --output-dir "$out/run"
) >"$D/audit.json" 2>"$out/stderr"
check "audit of $host: exit 0" [ $? -eq 0 ]
docs+=("$D/audit.json")

if command -v fio >/dev/null; then
	mkdir -p "$TMP/fs"
	"$CMAX" bench storage --path "$TMP/fs" --yes --json --clients 2 --size 8M >"$D/storage.json" 2>"$TMP/st.err"
	check "bench storage (real fio, 1 and 2 clients, 8 MiB): exit 0" [ $? -eq 0 ]
	"$CMAX" bench storage --path "$TMP/fs" --yes --json --endurance --endurance-minutes 0.05 --size 16M \
		>"$D/endurance.json" 2>"$TMP/en.err"
	check "bench storage --endurance (3 x 1 s): exit 0" [ $? -eq 0 ]
	docs+=("$D/storage.json" "$D/endurance.json")
else
	skip "fio is not installed: no storage runs (apt-get install fio)"
fi

# bench net: nccl-tests all-reduce at 1, 2 and 4 nodes replayed by a fake srun
# inside a fake allocation (as tests/cli/t-bench-net.sh does)
N=$TMP/net NET=$SRCDIR/tests/unit/net
i=0
for n in 1 2 4; do
	i=$((i + 1))
	mkdir -p "$N/cmd/srun/$i"
	printf '%s\n' --nodes=$n --ntasks=$((n * 8)) --ntasks-per-node=8 all_reduce_perf -b 8 -e 16G -f 2 -g 1 \
		>"$N/cmd/srun/$i/argv"
	cp "$NET/nccl-2.14.1-allreduce-${n}x8.txt" "$N/cmd/srun/$i/stdout"
	echo 0 >"$N/cmd/srun/$i/exit"
done
mkdir -p "$N/cmd/all_reduce_perf/1" && echo '*' >"$N/cmd/all_reduce_perf/1/argv" && echo 0 >"$N/cmd/all_reduce_perf/1/exit"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$N/cmd" "$BUILD/fakecmd" "$N/bin" >/dev/null
env -i HOME="$TMP" PATH="$N/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_HOME="$CMAX_HOME" \
	CMAX_FAKE_DIR="$N/cmd" CMAX_FAKE_LOG="$N/fake.log" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 \
	SLURM_GPUS_ON_NODE=8 SLURM_JOB_NODELIST='gpu-a[01-04]' \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	"$CMAX" bench net --sysroot "$SRCDIR/tests/fixtures/hosts/h100-healthy/root" --yes --json --scaling \
	>"$D/net.json" 2>"$TMP/net.err"
check "bench net (all-reduce 1, 2, 4 nodes, replayed): exit 0" [ $? -eq 0 ]
docs+=("$D/net.json")

# inject: Xid 79 on a real Slurm, detected and drained by cmax health check,
# resumed by the test, running work again
real_slurm=1
for c in slurmctld slurmd munged scontrol sinfo srun; do command -v $c >/dev/null || real_slurm=0; done
[ "$(id -u)" = 0 ] || real_slurm=0
if [ $real_slurm = 1 ]; then
	chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
	export HC_INTERVAL=2 NNODES=1
	. "$SRCDIR/tests/slurm/inject-lib.sh"
	mkdir -p "$SLURM_BASE/etc"
	: >"$TMP/kern-node1.log"
	"$SRCDIR/tests/slurm/inject-hc-wrapper.sh" "$SLURM_BASE/etc/hc.sh" "$CMAX" "$TMP" "$SLURM_BASE/etc/slurm.conf"
	if BASE=$SLURM_BASE HEALTH_PROGRAM=$SLURM_BASE/etc/hc.sh "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
		export SLURM_CONF=$SLURM_BASE/etc/slurm.conf
		wait_for 10 test -s "$TMP/hc-state-node1.json"
		"$CMAX" inject xid 79 --method log --log-file "$TMP/kern-node1.log" --node node1 --gpu 0000:5a:00 \
			--yes --json --i-own-this-node --timeout 20 --wait-return 30 >"$D/inject.json" 2>"$TMP/inj.err" &
		pid=$!
		if wait_for 15 sh -c 'sinfo -h -n node1 -o %T | grep -q ^drain'; then
			sleep 0.5
			scontrol update NodeName=node1 State=RESUME
		fi
		wait $pid
		check "inject xid 79 on a real Slurm: exit 0" [ $? -eq 0 ]
		diag <"$TMP/inj.err"
	else
		not_ok "slurm-up for the inject run"; diag <"$TMP/up.log"
		real_slurm=0
	fi
fi
if [ $real_slurm = 0 ] || [ ! -s "$D/inject.json" ]; then
	cp "$SRCDIR/tests/fixtures/rate/real/inject-xid79.json" "$D/inject.json"
	echo "no real Slurm here (needs root and slurm-wlm): the inject section is the recorded real document" \
		"tests/fixtures/rate/real/inject-xid79.json, imported into the store, not a run of this test" | diag
	"$CMAX" runs import "$D/inject.json" >/dev/null 2>&1
fi
docs+=("$D/inject.json")

(cd "$SRCDIR/tests/fixtures/sla" && "$CMAX" sla --events nvl72/three-trays.csv --layout nvl72/layout.yaml \
	--period 2026-11 --json) >"$D/sla.json" 2>"$TMP/sla.err"
check "sla on three trays down at once: exit 0" [ $? -eq 0 ]
docs+=("$D/sla.json")

# rate: the runs above as one provider's evidence; compared with the rate
# fixture's strong provider
P=$TMP/provider; mkdir -p "$P"
for f in audit storage endurance net inject; do [ -s "$D/$f.json" ] && cp "$D/$f.json" "$P/$f.json"; done
"$CMAX" rate "$P" --json >"$D/rate.json" 2>"$TMP/rate.err"
check "rate of the runs above: exit 0" [ $? -eq 0 ]
"$PY" "$SRCDIR/tests/fixtures/rate/assemble.py" "$TMP/rfx" base >/dev/null
"$CMAX" rate --compare "$P" "$TMP/rfx/base" --json >"$D/compare.json" 2>"$TMP/cmp.err"
check "rate --compare with the fixture's base provider: exit 0" [ $? -eq 0 ]
docs+=("$D/rate.json" "$D/compare.json")
echo "the runs took $((SECONDS - t_start)) s" | diag

# ---- the store: each run listed, its document the file ----------------------
ids=()
"$CMAX" runs list --json >"$TMP/list.json" 2>"$TMP/list.err"; rc=$?
check "cmax runs list --json: exit 0" [ $rc -eq 0 ]
diag <"$TMP/list.err"
# map each document to the run whose exported document equals it
"$PY" - "$TMP/list.json" "$CMAX" "${docs[@]}" >"$TMP/map" 2>&1 <<'EOF'
import json, subprocess, sys
runs = json.load(open(sys.argv[1])).get("runs", [])
stored = {}
for r in runs:
    p = subprocess.run([sys.argv[2], "runs", "export", r["id"]], capture_output=True, text=True, timeout=30)
    if p.returncode == 0:
        stored[r["id"]] = json.loads(p.stdout)
for f in sys.argv[3:]:
    d = json.load(open(f))
    hit = [i for i, s in stored.items() if s == d]
    print("%s\t%s" % (f, hit[0] if hit else "-"))
EOF
inputs=()
while IFS=$'\t' read -r f id; do
	case $id in
	-) not_ok "runs list has $(basename "$f") (a run whose exported document equals it)"
	   inputs+=("$f") ;;
	*) ok "runs list has $(basename "$f") as run $id"; inputs+=("run:$id"); ids+=("$id=$f") ;;
	esac
done <"$TMP/map"
grep -v $'\t' "$TMP/map" | diag
[ ${#inputs[@]} -gt 0 ] || inputs=("${docs[@]}")   # the listing unreadable: the files, so the page is still judged

# ---- the report in Chromium --------------------------------------------------
mkdir -p "$ART"
labels() { # the labels a page may give document PATH: its path, its name, run:ID and ID
	local f=$1 l=$1 e
	for e in "${ids[@]}"; do [ "${e#*=}" = "$f" ] && l="$l,run:${e%%=*},${e%%=*}"; done
	echo "$l"
}
"$CMAX" report "${inputs[@]}" --html "$TMP/report.html" >"$TMP/rep.out" 2>"$TMP/rep.err"
rc=$?
check "cmax report --html of ${#inputs[@]} runs: exit 0, the page written" [ $rc -eq 0 -a -s "$TMP/report.html" ]
diag <"$TMP/rep.err"
# the page and its documents are kept with the screenshots (CI artifacts)
[ -s "$TMP/report.html" ] && cp "$TMP/report.html" "$ART/report-runs.html"
mkdir -p "$ART/report-docs" && cp "${docs[@]}" "$ART/report-docs/"
# view NAME PAGE [--text-contains S]: Chromium's facts in $TMP/NAME.json, the screenshot kept
view() {
	local name=$1 page=$2; shift 2
	TMPDIR=$TMP "$PY" "$B/cdriver.py" "$page" --facts "$TMP/$name.json" --screenshot "$ART/report-$name.png" \
		--timeout 60 "$@" 2>"$TMP/$name.cd.err"
	local rc=$?
	check "Chromium loaded the $name page (cdriver.py exit $rc)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || { diag <"$TMP/$name.cd.err"; return 1; }
	"$PY" -c 'import json,sys; f=json.load(open(sys.argv[1]))
print("screenshot: %s (the whole page, %s x %s px at a 1280 px window)" % (sys.argv[2], f["page_width"], f["page_height"]))' \
		"$TMP/$name.json" "$ART/report-$name.png" | diag
}
# judge FACTS ARGS...: check_report.py's lines as TAP
judge() {
	local facts=$1; shift
	"$PY" "$B/check_report.py" "$facts" "$@" >"$TMP/judge.out" 2>&1 ||
		echo "not ok check_report.py failed" >>"$TMP/judge.out"
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"not ok "*) not_ok "${line#not ok }" ;;
		*) echo "$line" | diag ;;
		esac
	done <"$TMP/judge.out"
}
want=(--want-kind audit-summary --want-kind nccl-busbw --want-kind sla-timeline --want-kind inject-timeline
	--want-kind tier-card --want-kind rate-compare)
command -v fio >/dev/null && want+=(--want-kind storage-throughput --want-kind storage-p99 --want-kind endurance-bw)
docargs=()
for f in "${docs[@]}"; do docargs+=(--doc "$(labels "$f")=$f"); done
if [ -s "$TMP/report.html" ] && view runs "$TMP/report.html"; then
	judge "$TMP/runs.json" "${docargs[@]}" --min-charts 5 "${want[@]}" --name report
fi

# ---- a hostile document ------------------------------------------------------
# the audit, storage, net and SLA documents with markup, quotes, control
# characters and javascript: URLs where a page shows text: host names (the
# net chart's series), row titles and summaries, evidence, references, unit
# names (the timeline's series and ticks), the file name (data-source)
H=$TMP/hostile; mkdir -p "$H"
pairs=() hidx=() hdocs=()
for i in "${!docs[@]}"; do
	case $(basename "${docs[$i]}") in
	audit.json) dst="$H/evil\"'<i>x.json" ;;
	storage.json | net.json | sla.json) dst=$H/$(basename "${docs[$i]}") ;;
	*) continue ;;
	esac
	pairs+=("${docs[$i]}" "$dst"); hidx+=("$i"); hdocs+=("$dst")
done
"$PY" - "${pairs[@]}" <<'EOF'
import json, sys
EVIL = "<script>alert(1)</script>"
MORE = "</svg><script>alert(2)</script> \"double\" 'single' \u0001 \u001b[31mred\u001b[0m <img src=x onerror=alert(3)>"
def poison(d):
    for r in d.get("results", []):
        r["host"] = EVIL
        r["summary"] = MORE + " " + (r.get("summary") or "")
        r["title"] = (r.get("title") or "") + " </title></svg><script>alert(4)</script>"
        r["references"] = ["javascript:alert(5)", "https://example.invalid/\"><script>alert(6)</script>"]
        r["remediation"] = "javascript:alert(7) " + EVIL
        r["evidence"] = [{"kind": "command", "command": "echo '" + EVIL + "'", "outcome": "exited",
                          "exit_code": 0, "duration_ms": 1, "stdout": MORE + "\n</pre></td></table>" + EVIL,
                          "stderr": "\u001b[31m" + EVIL}, {"kind": "note", "text": EVIL + " javascript:alert(8)"}]
        o = r.get("observed")
        if isinstance(o, dict) and isinstance(o.get("hosts"), list):
            o["hosts"] = [EVIL + "'\"" + h for h in o["hosts"]]
    if isinstance(d.get("target"), dict):
        d["target"]["hosts"] = [EVIL, "a\"b'c"]
    for us in (d.get("units") or {}).values():
        for u in us:
            u["name"] = u["name"] + " \"'" + EVIL
a = sys.argv[1:]
for src, dst in zip(a[::2], a[1::2]):
    d = json.load(open(src))
    poison(d)
    json.dump(d, open(dst, "w"))
EOF
"$CMAX" report "${hdocs[@]}" --html "$TMP/hostile.html" >/dev/null 2>"$TMP/hrep.err"
rc=$?
check "cmax report --html of ${#hdocs[@]} hostile documents: exit 0" [ $rc -eq 0 -a -s "$TMP/hostile.html" ]
diag <"$TMP/hrep.err"
[ -s "$TMP/hostile.html" ] && cp "$TMP/hostile.html" "$ART/report-hostile.html"
hargs=()
for f in "${hdocs[@]}"; do hargs+=(--doc "$f=$f"); done
texts=('<script>alert(1)</script>' '</svg><script>alert(2)</script>' '<img src=x onerror=alert(3)>')
tview=() twant=()
for t in "${texts[@]}"; do tview+=(--text-contains "$t"); twant+=(--want-text "$t"); done
if [ -s "$TMP/hostile.html" ] && view hostile "$TMP/hostile.html" "${tview[@]}"; then
	judge "$TMP/hostile.json" "${hargs[@]}" --min-charts ${#hdocs[@]} "${twant[@]}" --name hostile
	check "hostile: no raw control character in the HTML (U+0001, ESC)" "$PY" -c '
import re,sys; s=open(sys.argv[1],encoding="utf-8").read(); c=re.findall(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", s)
assert not c, c[:5]' "$TMP/hostile.html"
	# the same documents unpoisoned: their sections of the runs page
	check "hostile: the same charts as the documents unpoisoned, each laid out" "$PY" -c '
import json,sys; h=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); idx={int(i) for i in sys.argv[3:]}
want=sorted(c["kind"] for c in r["charts"] if c["section"] in idx); got=sorted(c["kind"] for c in h["charts"])
assert got==want, (got, want)
assert all(min(c["box"])>0 and min(c["svg_box"] or [0])>0 for c in h["charts"]), [c["box"] for c in h["charts"]]' \
		"$TMP/hostile.json" "$TMP/runs.json" "${hidx[@]}"
	check "hostile: the hostile unit and host names are chart series, verbatim" "$PY" -c '
import json,sys; h=json.load(open(sys.argv[1]))
s=[m["series"] or "" for c in h["charts"] if c["kind"] in ("sla-timeline", "nccl-busbw") for m in c["marks"]]
assert s and any("<script>alert(1)</script>" in x for x in s), sorted(set(s))[:5]' "$TMP/hostile.json"
fi
echo "the whole test took $((SECONDS - t_start)) s" | diag
done_testing
