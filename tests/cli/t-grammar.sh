#!/usr/bin/env bash
# One flag grammar for every command (issue 12, core/options.h): read the
# command table from the binary itself (cmax __cli-spec, the same table the
# man pages and the completion are made from) and, for every visible
# command and benchmark: --json and -v are in its table with the one shared
# meaning, -vvv bundles, --opt=value and --opt value both parse, a value
# option without its value and a prefix of a long name are refused, and a
# mistyped option gets "did you mean". Nothing here runs a command's work:
# every invocation ends in --help (or fails before it), so it changes nothing.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

if ! command -v python3 >/dev/null; then
	skip "python3 is needed to read the command table"
	done_testing; exit
fi
"$CMAX" __cli-spec >"$TMP/spec.json" || not_ok "cmax __cli-spec failed"

# One line per command path: path<TAB>json-help<TAB>verbose-help<TAB>value-option<TAB>value
python3 - "$TMP/spec.json" >"$TMP/cmds" <<'EOF'
import json, sys
spec = json.load(open(sys.argv[1]))
def value_option(opts):
    # a text option: any value parses (the numbers have their own test, t-numbers.sh)
    for kind in ("string", "list", "choice"):
        for o in opts:
            if o["type"] == kind and not o.get("hidden"):
                return o["name"], (o.get("choices") or ["x"])[0]
    return "", ""
def walk(c, path, inherited):
    if c.get("hidden"):
        return
    p = (path + " " + c["name"]).strip()
    opts = c.get("options") or inherited
    subs = c.get("subcommands") or []
    if not c.get("needs_subcommand"):
        byname = {o["name"]: o for o in opts or []}
        vo, vv = value_option(opts or [])
        print("\t".join([p, byname.get("json", {}).get("help", "-"), byname.get("verbose", {}).get("help", "-"), vo, vv]))
    for s in subs:
        walk(s, p, opts)
for c in spec["commands"]:
    walk(c, "", None)
EOF
check "the table lists the commands" test "$(wc -l <"$TMP/cmds")" -ge 15

json_help=$(awk -F'\t' '$1=="rate"{print $2}' "$TMP/cmds")
while IFS=$'\t' read -r path jh vh vo vv; do
	read -r -a words <<<"$path"
	case $path in
	bench) continue ;; # needs a benchmark: its subcommands are checked
	help | version) ;;
	esac
	check "$path: --json is in its table" test "$jh" != "-"
	check "$path: -v is in its table" test "$vh" != "-"
	"$CMAX" "${words[@]}" -vvv --help >/dev/null 2>"$TMP/err"
	check "$path: -vvv bundles (then --help: 0)" test $? = 0
	"$CMAX" "${words[@]}" --json --help >/dev/null 2>"$TMP/err"
	check "$path: --json parses" test $? = 0
	"$CMAX" "${words[@]}" --verb --help >/dev/null 2>"$TMP/err"
	rc=$?
	check "$path: a prefix of --verbose is refused (64, got $rc)" test $rc = 64
	check "$path:   and named" grep -q "did you mean '--verbose'" "$TMP/err"
	"$CMAX" "${words[@]}" --jsno >/dev/null 2>"$TMP/err"
	check "$path: --jsno gets did-you-mean --json" grep -q "did you mean '--json'" "$TMP/err"
	check "$path:   in one line" test "$(wc -l <"$TMP/err")" = 1
	if [ -n "$vo" ]; then
		"$CMAX" "${words[@]}" "--$vo=$vv" --help >/dev/null 2>"$TMP/err"
		check "$path: --$vo=$vv parses" test $? = 0
		"$CMAX" "${words[@]}" "--$vo" "$vv" --help >/dev/null 2>"$TMP/err"
		check "$path: --$vo $vv parses" test $? = 0
		"$CMAX" "${words[@]}" "--$vo" >/dev/null 2>"$TMP/err"
		rc=$?
		check "$path: --$vo without a value: 64 (got $rc)" test $rc = 64
	fi
done <"$TMP/cmds"

# one meaning: the shared options' help is the same text in every table
# that takes them from core/options.h (version and help say what theirs do)
n=$(awk -F'\t' '$1!="version" && $1!="help" && $1!="bench" && $1!="audit review" && $2!="-"{print $2}' "$TMP/cmds" | sort -u | wc -l)
check "--json says the same in every command that shares it ($n texts)" test "$n" -le 2
n=$(awk -F'\t' '$1!="version" && $1!="help" && $1!="bench" && $3!="-"{print $3}' "$TMP/cmds" | sort -u | wc -l)
check "-v says the same in every command ($n texts)" test "$n" = 1
[ -n "$json_help" ] || not_ok "rate has no --json"
done_testing
