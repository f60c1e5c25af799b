#!/usr/bin/env bash
# Each field case of the method has a fixture host the audit grades WARN or
# FAIL and a healthy twin it grades PASS (tests/fixtures/field-cases.tsv).
# Reads the hosts' goldens; t-fixtures.sh proves them equal to the audit's
# output. A case whose check or host is missing fails here.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
status_of() { # HOST CHECK -> the row's status, or "missing"
	"$PY" - "$SRCDIR/tests/fixtures/hosts/$1/expected.json" "$2" <<'PY'
import json, sys
try:
    rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["id"] == sys.argv[2]]
except OSError:
    rows = []
print(rows[0]["status"] if rows else "missing")
PY
}
n=0
while IFS=$'\t' read -r what id faulty twin; do
	case $what in "#"* | "") continue ;; esac
	n=$((n + 1))
	for hs in $faulty; do
		h=${hs%%:*} want=${hs#*:}
		got=$(status_of "$h" "$id")
		check "$what: $id is $want on $h (got $got)" test "$got" = "$want"
	done
	got=$(status_of "$twin" "$id")
	check "$what: $id PASSes on the healthy twin $twin (got $got)" test "$got" = PASS
done <"$SRCDIR/tests/fixtures/field-cases.tsv"
check "the table lists the field cases ($n)" test "$n" -ge 12
done_testing
