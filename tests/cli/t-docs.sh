#!/usr/bin/env bash
# --help and the man pages say the same things (curl-style doc sync):
# every long option in `cmax audit --help` is in cmax-audit(1) and back,
# every command in `cmax --help` is in cmax(1), and every check id in the
# table is documented in docs/checks.md.
. "$SRCDIR/tests/lib/tap.sh"
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
done_testing
