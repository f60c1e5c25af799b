#!/usr/bin/env bash
# The man page of every command and the bash completion are generated from
# the binary's tables (`cmax __cli-spec`, tools/gen-cli-docs.py): the
# checked-in files equal a fresh generation, each page renders without a
# warning, the completion completes commands, subcommands and options, and
# the command table's names agree with what the commands themselves say.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
CMDS="audit bench health inject reboot-test rate sla accept minimums runs report"

if "$CMAX" __cli-spec >"$TMP/spec.json" 2>"$TMP/err" &&
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == "cmax.cli-spec/1" and d["commands"]' "$TMP/spec.json"; then
	ok "cmax __cli-spec prints the command table as JSON"
else
	not_ok "cmax __cli-spec prints the command table as JSON"; diag <"$TMP/err"
fi
check "__cli-spec is hidden from the help" sh -c '! "$1" --help | grep -q __cli-spec' _ "$CMAX"

if "$PY" "$SRCDIR/tools/gen-cli-docs.py" "$CMAX" --out "$TMP/gen" >"$TMP/gen.log" 2>&1; then
	ok "tools/gen-cli-docs.py runs"
else
	not_ok "tools/gen-cli-docs.py runs"; diag <"$TMP/gen.log"
fi
for c in $CMDS; do
	f=man/cmax-$c.1
	check "$f exists" test -s "$SRCDIR/$f"
	if cmp -s "$SRCDIR/$f" "$TMP/gen/$f"; then
		ok "$f matches the binary's tables"
	else
		not_ok "$f matches the binary's tables (run tools/gen-cli-docs.py BUILD/cmax)"
		diff -u "$SRCDIR/$f" "$TMP/gen/$f" | head -20 | diag
	fi
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww "$SRCDIR/$f" >/dev/null 2>"$TMP/groff.err"
		check "$f renders without warnings" test ! -s "$TMP/groff.err"
		[ -s "$TMP/groff.err" ] && diag <"$TMP/groff.err"
	else
		skip "$f renders without warnings (no groff)"
	fi
done
if cmp -s "$SRCDIR/completion/cmax.bash" "$TMP/gen/completion/cmax.bash"; then
	ok "completion/cmax.bash matches the binary's tables"
else
	not_ok "completion/cmax.bash matches the binary's tables (run tools/gen-cli-docs.py BUILD/cmax)"
	diff -u "$SRCDIR/completion/cmax.bash" "$TMP/gen/completion/cmax.bash" | head -20 | diag
fi

# the completion, as bash calls it: COMP_WORDS / COMP_CWORD, then _cmax
complete_words() { # words... ; prints COMPREPLY
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _cmax; echo "${COMPREPLY[*]}"' \
		_ "$SRCDIR/completion/cmax.bash" "$@"
}
check "completion: cmax aud -> audit" test "$(complete_words cmax aud)" = audit
check "completion: cmax bench st -> storage" test "$(complete_words cmax bench st)" = storage
check "completion: cmax health w -> watch" test "$(complete_words cmax health w)" = watch
check "completion: cmax help rat -> rate" test "$(complete_words cmax help rat)" = rate
check "completion: cmax audit --sysr -> --sysroot" test "$(complete_words cmax audit --sysr)" = --sysroot
check "completion: hidden commands are not offered" test -z "$(complete_words cmax __)$(complete_words cmax node-)"
mkdir -p "$TMP/cdir/sub" && : >"$TMP/cdir/file"
check "completion: a directory option completes directories" \
	test "$(complete_words cmax audit --sysroot "$TMP/cdir/")" = "$TMP/cdir/sub"
# a choice, when some command's table has one (--output FORMAT and the like)
choice=$("$PY" -c '
import json,sys
def walk(cs, path):
    for c in cs:
        if c["hidden"]: continue
        for o in c["options"] or []:
            if o["choices"] and not o["hidden"]:
                print(" ".join(path + [c["name"]]), o["name"], o["choices"][0]); return True
        if walk(c["subcommands"], path + [c["name"]]): return True
    return False
walk(json.load(open(sys.argv[1]))["commands"], [])' "$TMP/spec.json")
if [ -n "$choice" ]; then
	set -- $choice
	words=("$@")
	n=${#words[@]}
	want=${words[n - 1]}
	got=$(complete_words cmax "${words[@]:0:n-2}" "--${words[n - 2]}" "${want:0:2}")
	check "completion: --${words[n - 2]} of ${words[*]:0:n-2} completes its choices ($got)" sh -c 'echo " $1 " | grep -q " $2 "' _ "$got" "$want"
else
	skip "completion of a choice (no option table has one yet)"
fi

# the names in the table are the ones the commands answer to
"$CMAX" bench --help | awk '/^Benchmarks:/{b=1;next} b&&NF==0{exit} b{print $1}' | sort >"$TMP/bench-help"
"$PY" -c 'import json,sys; [print(s["name"]) for c in json.load(open(sys.argv[1]))["commands"] if c["name"]=="bench" for s in c["subcommands"]]' \
	"$TMP/spec.json" | sort >"$TMP/bench-table"
check "the command table's benchmarks are cmax bench --help's" cmp -s "$TMP/bench-help" "$TMP/bench-table"

# the one command table: suggestions, help COMMAND, stdout checked
"$CMAX" audti >/dev/null 2>"$TMP/err"
check "cmax audti: exit 64 (got $?)" test $? = 64
check "cmax audti suggests audit" grep -qx "cmax: unknown command 'audti' (did you mean 'audit'?) (see cmax --help)" "$TMP/err"
"$CMAX" bench stroage >/dev/null 2>"$TMP/err"
check "cmax bench stroage: exit 64 (got $?)" test $? = 64
check "cmax bench stroage suggests storage" grep -qx "cmax bench: unknown benchmark 'stroage' (did you mean 'storage'?) (see cmax bench --help)" "$TMP/err"
"$CMAX" health wacth >/dev/null 2>"$TMP/err"
check "cmax health wacth suggests watch" grep -q "did you mean 'watch'" "$TMP/err"
"$CMAX" frobnicate >/dev/null 2>"$TMP/err"
check "nothing near: no suggestion" sh -c '! grep -q "did you mean" "$1" && test "$(wc -l <"$1")" = 1' _ "$TMP/err"
"$CMAX" $'\033[2J' >/dev/null 2>"$TMP/err"
check "an unknown command is escaped for the terminal" sh -c '! grep -q "$(printf "\033")" "$1"' _ "$TMP/err"
"$CMAX" help audit >"$TMP/h1" 2>&1
"$CMAX" audit --help >"$TMP/h2" 2>&1
check "cmax help audit is cmax audit --help" cmp -s "$TMP/h1" "$TMP/h2"
"$CMAX" help bench storage >"$TMP/h1" 2>&1
"$CMAX" bench storage --help >"$TMP/h2" 2>&1
check "cmax help bench storage is cmax bench storage --help" cmp -s "$TMP/h1" "$TMP/h2"
"$CMAX" help audti >/dev/null 2>"$TMP/err"
check "cmax help audti: 64 with a suggestion (got $?)" sh -c 'test "$1" = 64 && grep -q "did you mean .audit." "$2"' _ $? "$TMP/err"
"$CMAX" help >"$TMP/h1" 2>&1
check "cmax help is the command list with the exit statuses" sh -c 'grep -q "^Commands:" "$1" && grep -q "^Exit status:" "$1"' _ "$TMP/h1"
if [ -w /dev/full ]; then
	"$CMAX" version >/dev/full 2>"$TMP/err"
	rc=$?
	check "cmax version >/dev/full fails with 73 (got $rc)" test $rc = 73
	check "... in one line naming stdout" sh -c 'test "$(wc -l <"$1")" = 1 && grep -q "^cmax: cannot write to stdout" "$1"' _ "$TMP/err"
	"$CMAX" --help >/dev/full 2>/dev/null
	check "cmax --help >/dev/full fails too (got $?)" test $? = 73
else
	skip "writing to /dev/full (none here)"
fi
"$CMAX" version | head -c1 >/dev/null
check "a reader that stops early is not an error (pipe)" test "${PIPESTATUS[0]}" = 0
done_testing
