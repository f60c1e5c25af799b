#!/usr/bin/env bash
# The browser harness of the report tests can fail: tests/browser/cdriver.py
# (headless Chromium through chromedriver) and check_report.py on the
# hand-written pages of tests/browser/selftest. The contract page passes
# every check against the documents beside it; the same page with a value
# changed, a mark left out, an axis label lost fails exactly those checks;
# a page that fetches from the network is caught by the performance log AND
# by the recording proxy (names resolve nowhere); a page that runs a script
# is caught by its script element, its console error and its alert.
# SKIPs everything when chromium or chromedriver is not installed.
. "$(dirname "$0")/../lib/tap.sh"
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
B=$SRCDIR/tests/browser
S=$B/selftest
ART=${CMAX_ARTIFACTS:-$BUILD/artifacts}

# facts NAME PAGE [cdriver args]: $TMP/NAME.json; the exit status of cdriver.py
facts() {
	local name=$1 page=$2; shift 2
	TMPDIR=$TMP "$PY" "$B/cdriver.py" "$page" --facts "$TMP/$name.json" --timeout 60 "$@" 2>"$TMP/$name.err"
}
facts good "$S/good.html" --screenshot "$TMP/good.png" --text-contains '<script>alert(1)</script>'
rc=$?
if [ $rc -eq 2 ]; then
	skip "$(head -1 "$TMP/good.err")"
	done_testing; exit
fi
check "cdriver.py loads the self-test page (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { diag <"$TMP/good.err"; done_testing; exit; }
check "... and wrote a PNG screenshot" sh -c 'head -c 8 "$1" | od -An -c | grep -q "P   N   G"' _ "$TMP/good.png"
mkdir -p "$ART" && cp "$TMP/good.png" "$ART/report-harness-selftest.png" &&
	echo "screenshot: $ART/report-harness-selftest.png" | diag

# check NAME FACTS ARGS...: check_report.py's lines as TAP, each prefixed
judge() {
	local facts=$1; shift
	"$PY" "$B/check_report.py" "$facts" "$@" >"$TMP/judge.out" 2>&1 ||
		echo "not ok check_report.py failed" >>"$TMP/judge.out"
}
docs=(--doc "net.json=$S/net.json" --doc "storage.json=$S/storage.json" --doc "sla.json=$S/sla.json")
judge "$TMP/good.json" "${docs[@]}" --min-charts 3 --want-kind nccl-busbw --want-kind storage-throughput \
	--want-kind sla-timeline --want-text '<script>alert(1)</script>' --name selftest
n_ok=$(grep -c '^ok ' "$TMP/judge.out"); n_bad=$(grep -c '^not ok' "$TMP/judge.out")
check "the contract page passes all $n_ok checks against its documents" [ "$n_bad" -eq 0 -a "$n_ok" -ge 20 ]
[ "$n_bad" -eq 0 ] || diag <"$TMP/judge.out"

# the same page, wrong: one value 2e-7 relative off, a mark dropped, a start
# moved by one second, the y label of the timeline turned into a tick
sed -e 's/data-y="180.5"/data-y="180.50004"/' -e '/data-x="rand-read-4k-direct"/d' \
	-e 's/data-start="2026-11-03T10:00:00Z"/data-start="2026-11-03T10:00:01Z"/' \
	-e 's/class="axis-label" x="5" y="12">unit/class="tick" x="5" y="12">unit/' "$S/good.html" >"$TMP/bad.html"
facts bad "$TMP/bad.html"
judge "$TMP/bad.json" "${docs[@]}" --name bad
failed() { grep -q "^not ok bad: $1" "$TMP/judge.out"; }
check "a value 2e-7 off fails the busbw chart's values" failed "chart 0 (nccl-busbw.*marks equal"
check "... and the every-number-is-the-document's check" failed "chart 0 (nccl-busbw.*every mark and reference"
check "a case left out fails the throughput chart (not plotted)" \
	grep -q "not plotted: bench.storage-rand-read-4k-direct-c1" "$TMP/judge.out"
check "a start one second late fails the timeline's values" failed "chart 2 (sla-timeline.*marks equal"
check "a missing y axis label fails the timeline's structure" failed "chart 2 (sla-timeline.*one svg"
check "the untouched parts still pass (the storage structure, the sections)" \
	sh -c '! grep -q "^not ok bad: \(chart 1 (storage-throughput.*one svg\|one <section\)" "$1"' _ "$TMP/judge.out"

# network attempts: an http style sheet, an https image, a loopback image
facts net "$S/network.html"
check "network page: cdriver.py exits 0" [ $? -eq 0 ]
check "network page: the performance log has the three requests" "$PY" -c '
import json,sys; f=json.load(open(sys.argv[1])); r=sorted(f["requests"])
assert r==["http://127.0.0.1:45678/pixel.png", "http://cdn.example.invalid/report.css",
           "https://tracker.example.com/pixel.gif"], r' \
	"$TMP/net.json"
check "network page: the recording proxy saw all three (CONNECT for https, the loopback one too)" "$PY" -c '
import json,sys; f=json.load(open(sys.argv[1])); h=f["proxy_requests"]
assert f["proxy_hits"]>=3, h
assert any(x.startswith("CONNECT tracker.example.com:443") for x in h), h
assert any("127.0.0.1:45678/pixel.png" in x for x in h) and any("cdn.example.invalid" in x for x in h), h' "$TMP/net.json"
judge "$TMP/net.json" --name net
check "network page: check_report.py fails it (requests, proxy, CSP)" sh -c '
grep -q "^not ok net: no network request" "$1" && grep -q "^not ok net: no connection reached" "$1" &&
grep -q "^not ok net: Content-Security-Policy" "$1"' _ "$TMP/judge.out"

# a script: its element, console.error, alert()
facts con "$S/console.html"
check "script page: cdriver.py exits 0 (the alert is read, not fatal)" [ $? -eq 0 ]
check "script page: one script element, the console error, the alert's text" "$PY" -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert f["scripts"]==1, f["scripts"]
assert any(c["level"]=="SEVERE" and "deliberate console error" in c["message"] for c in f["console"]), f["console"]
assert f["alerts"]==["cmax-selftest alert"], f["alerts"]' "$TMP/con.json"
judge "$TMP/con.json" --name con
check "script page: check_report.py fails it (script, console, dialog)" sh -c '
grep -q "^not ok con: no <script>" "$1" && grep -q "^not ok con: no console message" "$1" &&
grep -q "^not ok con: no alert" "$1"' _ "$TMP/judge.out"

# the harness leaves nothing running: no chromedriver or browser of ours
check "no browser left behind by the harness (its profile directory names it)" \
	sh -c '! ps -eo args= | grep -q "[-]-user-data-dir=[^ ]*cdriver-profile\."'
check "an absent chromium is exit 2 with one line" sh -c '
CMAX_CHROMIUM=/nonexistent "$1" "$2" "$3" >/dev/null 2>"$4"; [ $? -eq 2 ] && [ $(wc -l <"$4") -eq 1 ]' _ \
	"$PY" "$B/cdriver.py" "$S/good.html" "$TMP/abs.err"
done_testing
