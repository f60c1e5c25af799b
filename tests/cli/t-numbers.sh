#!/usr/bin/env bash
# Numbers on the command line are cmax's to parse (core/numparse.h,
# docs/bench.md "Sizes, counts and durations"): a size, count, duration or
# port that is malformed, zero where zero means nothing, or out of range is
# a usage error (64) with one line naming the option, before anything is
# written or any connection is made. A storage benchmark whose files do not
# fit in the free space of --path (with the declared margin) is refused
# (73) before fio runs, and --dry-run says so with the figures.
# The small file system is a 64 MiB tmpfs mounted in the temp dir when
# running as root (unmounted on exit); otherwise the sizes are computed from
# the real free space of the temp dir.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
rc_of() { "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }
one_line() { test "$(wc -l <"$TMP/err")" = 1; }
D=$TMP/fs
mkdir -p "$D"

# ---- sizes ---------------------------------------------------------------
for s in 1E 0 -1 1Q 99999999999999999999 16E 0.3K 1.5 "" " 8M" 8M/s; do
	check "bench storage --size '$s': 64" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --size "$s")" = 64
	check "  one line naming --size" sh -c 'test "$(wc -l <"$1")" = 1 && grep -q -- "--size" "$1"' _ "$TMP/err"
done
check "  and nothing written" test -z "$(ls -A "$D")"
check "bench storage --size 1.5G --dry-run: accepted, planned as 1.50 GiB" \
	sh -c 'test "$("$@" >"$0" 2>&1; echo $?)" = 0 && grep -q "1.50 GiB" "$0"' "$TMP/out" \
	"$CMAX" bench storage --path "$D" --dry-run --size 1.5G
"$CMAX" bench storage --path "$D" --dry-run --json --size 1GiB --clients 2 >"$TMP/plan.json" 2>"$TMP/err"
check "--size 1GiB is 2^30 bytes (1024-based, not fio's KiB=1000), clients x size in bytes_max" python3 -c '
import json,sys; p=json.load(open(sys.argv[1]))
assert p["bytes_max"] == 2 * 2**30, p["bytes_max"]
assert all("--size=1073741824" in c for c in p["commands"]), p["commands"][0]' "$TMP/plan.json"
for v in 0 1025 -1 2x 99999999999999999999; do
	check "bench storage --clients $v: 64" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --clients "$v")" = 64
done
check "bench storage --runtime 0: 64" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --runtime 0)" = 64
check "bench storage --endurance-minutes 1e3: 64" \
	test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --endurance --endurance-minutes 1e3)" = 64
check "bench metadata --files 99999999999999999999: 64" \
	test "$(rc_of "$CMAX" bench metadata --path "$D" --dry-run --files 99999999999999999999)" = 64
check "bench s3 --large-size 1E: 64" \
	test "$(rc_of "$CMAX" bench s3 --endpoint http://127.0.0.1:9 --bucket b --dry-run --large-size 1E)" = 64
check "bench net --max-bytes 1Q: 64" test "$(rc_of "$CMAX" bench net --dry-run --max-bytes 1Q)" = 64

# ---- common options --------------------------------------------------------
check "bench storage --quick --full: 64" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --quick --full)" = 64
check "  one line naming both" sh -c 'one=$(wc -l <"$1"); test "$one" = 1 && grep -q -- "--quick" "$1" && grep -q -- "--full" "$1"' _ "$TMP/err"
check "bench metadata --full --quick: 64" test "$(rc_of "$CMAX" bench metadata --path "$D" --dry-run --full --quick)" = 64
check "bench storage --full --full: still fine" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --full --full)" = 0
check "bench --timeout 5m: accepted as 300 s" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --timeout 5m)" = 0
check "bench --timeout 0: 64" test "$(rc_of "$CMAX" bench storage --path "$D" --dry-run --timeout 0)" = 64

# ---- ports -------------------------------------------------------------------
# Nothing listens on 127.0.0.1:9 (discard) here; an accepted port would be
# tried and give 69, so 64 proves it was refused before any connection.
for u in http://127.0.0.1:99999 http://127.0.0.1:0 http://127.0.0.1: "http://u:secret@127.0.0.1:65536/"; do
	check "bench s3 --endpoint $u --yes: 64" \
		test "$(rc_of timeout 20 "$CMAX" bench s3 --endpoint "$u" --bucket b --yes --small-objects 1 --large-objects 0)" = 64
	check "  one line naming --endpoint, no credentials" \
		sh -c 'test "$(wc -l <"$1")" = 1 && grep -q -- "--endpoint" "$1" && ! grep -q secret "$1"' _ "$TMP/err"
done
check "bench lifecycle --vllm-port 99999: 64" \
	test "$(rc_of "$CMAX" bench lifecycle --path "$D" --dry-run --vllm-port 99999)" = 64

# ---- accept --only -------------------------------------------------------------
PLAN=$SRCDIR/tests/fixtures/accept/small.yaml
for o in "" "," "storage,"; do
	check "accept --only '$o': 64" test "$(rc_of "$CMAX" accept "$PLAN" --only "$o" --dry-run)" = 64
	check "  one line" one_line
done

# ---- other commands' durations ------------------------------------------------------
check "audit --timeout 99999999999999999999: 64" \
	test "$(rc_of "$CMAX" audit --local --yes --timeout 99999999999999999999)" = 64
check "audit --tool-timeout 0: 64" test "$(rc_of "$CMAX" audit --local --yes --tool-timeout 0)" = 64
check "inject --timeout 1Q: 64" \
	test "$(rc_of "$CMAX" inject xid 79 --node n1 --method log --log-file "$TMP/x.log" --dry-run --timeout 1Q)" = 64

# ---- free space --------------------------------------------------------------------
S=$TMP/small
mkdir -p "$S"
mounted=
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64m,mode=0755 cmax-t-numbers "$S" 2>/dev/null; then
	mounted=1
	trap 'umount "$S" 2>/dev/null; rm -rf "$TMP"' EXIT
	BIG=1T
	FITS=8M
else
	# no tmpfs: sizes against the real free space of the temp dir
	S=$TMP/fs
	avail_mib=$(($(df -Pk "$S" | awk 'NR==2 {print $4}') / 1024))
	BIG=$((avail_mib + 1024))M
	FITS=8M
fi
[ -n "$mounted" ] && ok "a 64 MiB tmpfs in the temp dir (root)" || skip "not root or no tmpfs: sizes from df instead"
# a fio that records that it ran: the refusal must come before any fio
cat >"$TMP/fio" <<EOF
#!/bin/sh
echo ran >>"$TMP/fio.ran"
exec fio "\$@"
EOF
chmod +x "$TMP/fio"
check "--size $BIG on the small file system: 73" \
	test "$(rc_of "$CMAX" bench storage --path "$S" --yes --fio "$TMP/fio" --size "$BIG" --only seq-write-1m-buffered)" = 73
check "  one line with the need and the free space" \
	sh -c 'test "$(wc -l <"$1")" = 1 && grep -q "needs" "$1" && grep -q "free" "$1"' _ "$TMP/err"
check "  fio never ran" test ! -e "$TMP/fio.ran"
check "  nothing written" test -z "$(ls -A "$S")"
check "  no FAIL row: no result document at all" test ! -s "$TMP/out"
check "--dry-run --size $BIG: 73 and says it would not start" \
	test "$(rc_of "$CMAX" bench storage --path "$S" --dry-run --size "$BIG")" = 73
check "  the plan shows the need, the free space and the margin" \
	sh -c 'grep -q "^Needs .* free .* margin" "$1" && grep -q "would NOT start" "$1"' _ "$TMP/out"
"$CMAX" bench storage --path "$S" --dry-run --json --size "$BIG" >"$TMP/big.json" 2>/dev/null
check "  --dry-run --json: space.would_start false, need > free - margin" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["space"]
assert s["would_start"] is False and s["need_bytes"] > s["free_bytes"] - s["margin_bytes"], s
assert s["margin_bytes"] >= 16 << 20 and s["reason"], s' "$TMP/big.json"
if [ -n "$mounted" ]; then
	# 4 clients x 20 MiB = 80 MiB > 64 MiB: clients x size is what counts
	check "--clients 4 --size 20M on 64 MiB: 73" \
		test "$(rc_of "$CMAX" bench storage --path "$S" --yes --fio "$TMP/fio" --clients 4 --size 20M)" = 73
	check "  fio never ran" test ! -e "$TMP/fio.ran"
	check "bench metadata --alloc-mib 1024 on 64 MiB: 73" \
		test "$(rc_of "$CMAX" bench metadata --path "$S" --yes --alloc-mib 1024)" = 73
	check "  one line with the need, nothing written" sh -c 'one=$(wc -l <"$1"); test "$one" = 1 && grep -q needs "$1" && test -z "$(ls -A "$2")"' _ "$TMP/err" "$S"
	check "--clients 1 --size 20M on 64 MiB: would start" \
		sh -c 'test "$("$@" >"$0" 2>&1; echo $?)" = 0 && grep -q "would start" "$0"' "$TMP/out" \
		"$CMAX" bench storage --path "$S" --dry-run --clients 1 --size 20M
fi
if command -v fio >/dev/null; then
	check "--size $FITS fits: runs (fio ran) and exits 0" \
		test "$(rc_of "$CMAX" bench storage --path "$S" --yes --json --fio "$TMP/fio" --size "$FITS" --only seq-write-1m-buffered --runtime 1)" = 0
	check "  fio ran" test -s "$TMP/fio.ran"
	check "  no row failed for lack of space" sh -c '! grep -q "No space left" "$1"' _ "$TMP/out"
	check "  the document records the space check" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); s=d["parameters"]["space"]
assert s["need_bytes"] == 8 << 20 and s["would_start"] is True, s' "$TMP/out"
else
	skip "fio is not installed: the run that fits is not tried"
fi
done_testing
