#!/usr/bin/env bash
# `cmax minimums refresh --from DIR` (issue 13): a minimum table rebuilt
# offline from saved advisories (tests/fixtures/minimums/feeds: OSV from the
# GitHub advisory database and Ubuntu, NVIDIA CSAF), with provenance per
# moved entry and a diff against the base; `audit --minimums` takes the
# result and grades with it; bad input is a one-line error and exit code.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
FEEDS=$SRCDIR/tests/fixtures/minimums/feeds
PY=${PYTHON:-/usr/bin/python3}
# jcheck DESC FILE EXPR WANT: EXPR over the JSON document d, printed, equals WANT
jcheck() {
	local got
	got=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else not_ok "$1"; echo "#   got: $got" | head -5; fi
}

"$CMAX" minimums refresh --from "$FEEDS" --output-file "$TMP/mv.json" >"$TMP/out" 2>"$TMP/err"
check "refresh exits 0 (got $?)" test -s "$TMP/mv.json"
diag <"$TMP/err"
check "the diff names runc's 1.4 line moving to 1.4.5 and its advisory" grep -q 'runc 1.4: 1.4.3 -> 1.4.5  (OSV GHSA-4xq3-7qgm-9c2r' "$TMP/out"
check "the CSAF Linux driver fix moves branch 580" grep -q 'nvidiaDriver 580: 580.159.03 -> 580.172.01' "$TMP/out"
check "the Windows driver product moves nothing" test "$(grep -c 'nvidiaDriver 581' "$TMP/out")" = 0
check "the USN moves the entry of its CVE only" grep -q 'ubuntuNoble linuxFragnesia: 6.8.0-124.124 -> 6.8.0-141.141' "$TMP/out"
check "entries of other CVEs stay" test "$(grep -c 'linuxJanuscape' "$TMP/out")" = 0
jcheck "a moved entry carries its source" "$TMP/mv.json" 'd["components"]["runc"]["source"]["url"]' \
	"https://github.com/opencontainers/runc/security/advisories/GHSA-4xq3-7qgm-9c2r"
jcheck "and its basis names the saved file" "$TMP/mv.json" '"GHSA-4xq3-7qgm-9c2r.json" in d["components"]["runc"]["basis"]["figure"]' True
jcheck "an unmoved entry keeps its basis" "$TMP/mv.json" 'd["components"]["docker"]["basis"]["url"]' \
	"https://github.com/CVEProject/cvelistV5/blob/main/cves/2026/17xxx/CVE-2026-17106.json"
base_generated=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["generated"])' "$SRCDIR/data/minimum-versions.json")
jcheck "generated stays the base's when the base is newer than every advisory (not today)" "$TMP/mv.json" 'd["generated"]' "$base_generated"

# the refreshed table validates against the table's schema and its provenance rules
mkdir -p "$TMP/data"
cp "$TMP/mv.json" "$TMP/data/minimum-versions.json"
if "$PY" "$SRCDIR/tests/contract/provenance.py" "$TMP/data/minimum-versions.json" >"$TMP/prov" 2>&1; then
	ok "the refreshed table passes the provenance rules"
else
	not_ok "the refreshed table passes the provenance rules"; diag <"$TMP/prov"
fi

# --json: the changes as a document
"$CMAX" minimums refresh --from "$FEEDS" --json >"$TMP/doc.json"
jcheck "--json lists the changes" "$TMP/doc.json" 'len(d["changes"])' 5
jcheck "--json: nothing written without --output-file" "$TMP/doc.json" 'd.get("output_file")' None

# audit --minimums grades with the refreshed table: 580.159.03 now below the 580 floor
run_fixture h100-healthy "$TMP/base" --local --yes --json --output-dir "$TMP/base/run"
run_fixture h100-healthy "$TMP/new" --local --yes --json --output-dir "$TMP/new/run" --minimums "$TMP/mv.json"
jcheck "the shipped table: driver 580.159.03 passes" "$TMP/base/stdout" \
	'[r["status"] for r in d["results"] if r["id"] == "versions.nvidia-driver"]' "['PASS']"
jcheck "the refreshed table: driver 580.159.03 fails against 580.172.01" "$TMP/new/stdout" \
	'[r["status"] for r in d["results"] if r["id"] == "versions.nvidia-driver" and "580.172.01" in r["summary"]]' "['FAIL']"

# bad input: one line, a distinct exit code, nothing written
"$CMAX" minimums refresh --from "$TMP/nope" 2>"$TMP/e1"; rc=$?
check "a missing --from DIR is 66 ($rc)" test "$rc" = 66
check "in one line" test "$(wc -l <"$TMP/e1")" = 1
mkdir -p "$TMP/empty" "$TMP/bad"
"$CMAX" minimums refresh --from "$TMP/empty" 2>"$TMP/e2"; rc=$?
check "a DIR without advisories is 66 ($rc)" test "$rc" = 66
cp "$FEEDS"/*.json "$TMP/bad/"
printf '{"id": 1}' >"$TMP/bad/zz-garbage.json"
"$CMAX" minimums refresh --from "$TMP/bad" --output-file "$TMP/bad.out" 2>"$TMP/e3"; rc=$?
check "a file that is no advisory is 65 ($rc)" test "$rc" = 65
check "naming the file" grep -q 'zz-garbage.json: neither an OSV record' "$TMP/e3"
check "and nothing is written" test ! -e "$TMP/bad.out"
"$CMAX" minimums refresh 2>"$TMP/e4"; rc=$?
check "refresh without --from is a usage error ($rc)" test "$rc" = 64
ln -s /dev/null "$TMP/link.json"
"$CMAX" minimums refresh --from "$FEEDS" --output-file "$TMP/link.json" 2>"$TMP/e5"; rc=$?
check "an output through a link is refused (73, got $rc)" test "$rc" = 73
"$CMAX" minimums refresh --from "$FEEDS" --base "$FEEDS/README" 2>"$TMP/e6"; rc=$?
check "a base that is not a table is 65 ($rc)" test "$rc" = 65
done_testing
