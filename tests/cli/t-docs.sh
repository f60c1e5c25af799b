#!/usr/bin/env bash
# --help and the man pages say the same things (curl-style doc sync):
# every long option in `cmax audit --help` is in cmax-audit(1) and back,
# every command in `cmax --help` is in cmax(1), and every check id in the
# table is documented in docs/checks.md. README's counts (checks, profiles,
# fixture hosts) are generated from the check table and the fixture corpus
# and must match them; --active is described for what it does, which the
# dry-run plan reports; every fixture host is in tests/fixtures/README.md.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
man_opts() { grep -oE '\\-\\-[a-z][a-z\\-]*' "$1" | sed 's/\\//g' | sort -u; }
help_opts() { grep -oE -- '--[a-z][a-z-]*' | sort -u; }
"$CMAX" audit --help | help_opts >"$TMP/h"
man_opts "$SRCDIR/man/cmax-audit.1" >"$TMP/m"
only_help=$(comm -23 "$TMP/h" "$TMP/m")
only_man=$(comm -13 "$TMP/h" "$TMP/m")
check "every audit option in --help is in cmax-audit(1) (missing: ${only_help//$'\n'/ })" test -z "$only_help"
check "every option in cmax-audit(1) is in --help (extra: ${only_man//$'\n'/ })" test -z "$only_man"
"$CMAX" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF{print $1}' | grep -v Commands: >"$TMP/cmds"
missing=""
sed "s/\\\\-/-/g" "$SRCDIR/man/cmax.1" >"$TMP/man1"
while read -r c; do grep -q "^\.B $c" "$TMP/man1" || missing="$missing $c"; done <"$TMP/cmds"
check "every command in cmax --help is in cmax(1)${missing:+ (missing:$missing)}" test -z "$missing"
"$CMAX" --help | grep -oE '(^|[ ;:])[0-9]+ [a-zA-Z-]' | grep -oE '[0-9]+ ' | awk '{print $1}' | sort -u >"$TMP/codes_help"
grep -oE '^\.B [0-9]+$' "$SRCDIR/man/cmax.1" | awk '{print $2}' | sort -u >"$TMP/codes_man"
check "exit codes in --help and cmax(1) agree" cmp -s "$TMP/codes_help" "$TMP/codes_man"
for p in versions isolation hardware software containers orchestration networking storage health access security; do
	grep -q "$p" "$SRCDIR/man/cmax-audit.1" || not_ok "profile $p missing from cmax-audit(1)"
done
ok "every profile is in cmax-audit(1)"
"${PYTHON:-/usr/bin/python3}" "$SRCDIR/tools/gen-checks-doc.py" "$CMAX" >"$TMP/checks.md" 2>&1
if cmp -s "$TMP/checks.md" "$SRCDIR/docs/checks.md"; then
	ok "docs/checks.md matches the check table"
else
	not_ok "docs/checks.md matches the check table (run tools/gen-checks-doc.py build/cmax > docs/checks.md)"
	diff -u "$SRCDIR/docs/checks.md" "$TMP/checks.md" | head -20 | diag
fi

# README's counts, regenerated from their sources, equal the committed ones
if "${PYTHON:-/usr/bin/python3}" "$SRCDIR/tools/gen-checks-doc.py" "$CMAX" --readme "$SRCDIR/README.md" \
	>"$TMP/README.md" 2>"$TMP/readme.err" && cmp -s "$TMP/README.md" "$SRCDIR/README.md"; then
	ok "README's counts match the check table and the fixture corpus"
else
	not_ok "README's counts match the check table and the fixture corpus (run tools/gen-checks-doc.py build/cmax --readme README.md)"
	cat "$TMP/readme.err" | diag
	diff -u "$SRCDIR/README.md" "$TMP/README.md" | head -20 | diag
fi
# the counts are not typed numbers elsewhere in README: "N checks" only inside a marker
typed=$(sed -E 's/<!--n:[^>]*-->[^<]*<!--\/n-->//g' "$SRCDIR/README.md" |
	grep -noiE '\b([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen) (checks|profiles|fixture hosts|hosts with)\b' || true)
check "README types no count of checks, profiles or fixture hosts outside a generated marker${typed:+ ($typed)}" test -z "$typed"

# --active: documented for what it does. The plan says how many active
# probes this build has; with none, --help, the man page and README say
# that --active changes nothing, and README lists no probe as active.
nactive=$("$CMAX" audit --local --dry-run -o json | "${PYTHON:-/usr/bin/python3}" -c \
	'import json,sys; d=json.load(sys.stdin); print(d["active_probes_in_this_version"] if len(d["state_changing_probes"]) == d["active_probes_in_this_version"] else "inconsistent")')
if [ "$nactive" = 0 ]; then
	check "--help says --active changes nothing (no active probe in this version)" \
		sh -c '"$1" audit --help | tr -s " \n" " " | grep -q "changes nothing"' _ "$CMAX"
	check "cmax-audit(1) says --active changes nothing" \
		sh -c 'sed "s/\\\\-/-/g" "$1" | tr -s " \n" " " | grep -q "changes nothing"' _ "$SRCDIR/man/cmax-audit.1"
	check "README says --active changes nothing" \
		sh -c 'tr -s " \n" " " <"$1" | grep -q "\`--active\` changes nothing"' _ "$SRCDIR/README.md"
	check "README names no probe as running with --active (vboost, dcgmi diag, image pulls, traffic)" \
		sh -c '! tr -s " \n" " " <"$1" | grep -qiE "(vboost|dcgmi diag|pulling images|generating traffic)[^.]*--active"' _ "$SRCDIR/README.md"
	check "--dry-run states that no active probe exists" \
		sh -c '"$1" audit --local --dry-run | grep -q "No active probe exists in this version"' _ "$CMAX"
else
	check "active probes reported consistently by the plan (got $nactive)" test "$nactive" -gt 0 2>/dev/null
fi

# every fixture host is described in tests/fixtures/README.md's host table
missing=""
for hd in "$SRCDIR"/tests/fixtures/hosts/*/; do
	h=$(basename "$hd")
	grep -q "^| \`$h\` |" "$SRCDIR/tests/fixtures/README.md" || missing="$missing $h"
done
check "tests/fixtures/README.md describes every fixture host${missing:+ (missing:$missing)}" test -z "$missing"
done_testing
