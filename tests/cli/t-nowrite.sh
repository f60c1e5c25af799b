#!/usr/bin/env bash
# The default audit changes nothing: under strace, neither cmax nor any tool
# it runs opens a file for writing, creates, renames or removes anything
# outside the run directory and the results store it records the run in
# ($CMAX_HOME/cmax.db, store/store.h).
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
if ! command -v strace >/dev/null; then
	skip "strace not installed"
	done_testing
	exit
fi
out=$TMP/run
# LeakSanitizer cannot run under ptrace; the ASan suite checks leaks elsewhere.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# -y: a file created relative to a directory fd (openat(3</run dir>, ...),
# as core/outfile.h does) names that directory
strace -f -qq -y -o "$TMP/trace" -e trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,truncate,ftruncate,link,linkat,symlink,symlinkat,chmod,fchmodat,chown,fchownat \
	"$CMAX" audit --yes --output-dir "$out" >/dev/null 2>"$TMP/err" </dev/null
rc=$?
check "audit under strace exits 0 (got $rc)" test "$rc" = 0
writes=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|mkdir|rename|unlink|rmdir|truncate|link\(|symlink|chmod|chown' "$TMP/trace" |
	grep -v ' = -1 ' | grep -v -e "\"$out" -e "([0-9]*<$out[>/]" -e "\"$CMAX_HOME" -e "([0-9]*<$CMAX_HOME[>/]" | grep -vE '"/dev/(null|tty|pts/[0-9]+)"' || true)
if [ -z "$writes" ]; then
	ok "no write, create, rename or removal outside the run directory"
else
	not_ok "no write, create, rename or removal outside the run directory"
	echo "$writes" | head -20 | diag
fi
check "the run directory was written" test -s "$out/audit.results.json"
check "strace saw the audit's own file reads (the trace is real)" grep -q 'os-release' "$TMP/trace"
done_testing
