#!/usr/bin/env bash
# Every input read through the one reader (src/core/readfile.h,
# docs/inputs.md): a character device (/dev/zero, /dev/null), a block
# device, a socket and a directory are refused with exit 65 and one line
# within 5 s; a FIFO with no writer, or a writer that keeps it open and
# silent, ends at the pipe deadline; an endless writer stops at the cap; a
# sparse 8 GiB file is refused from its size; a file 1 byte over a kind's
# cap is refused and the override variables raise it (the per-kind one
# wins over the global one); a malformed override is a usage error (64).
# Commands: sla --events/--layout, rate (documents, --attestation), accept
# (--from-results, a plan, --previous), audit review, audit --minimums (on a
# fixture sysroot), bench --thresholds. The block device needs root (mknod)
# and is skipped without it.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
SLA=$SRCDIR/tests/fixtures/sla
EV=$SLA/nvl72/two-trays.csv
NV=(--layout "$SLA/nvl72/layout.yaml" --period 2026-11)
RDOC=$SRCDIR/tests/fixtures/rate/real/bench-metadata.json
ARES=$SRCDIR/tests/fixtures/accept/results
AUDIT=$SRCDIR/tests/fixtures/hosts/h100-healthy/expected.json
export CMAX_DATADIR=$SRCDIR/data
unset CMAX_MAX_INPUT_MB CMAX_INPUT_TIMEOUT_S
for k in RESULTS EVENTS POLICY MINIMUMS STATE RECORDING CREDENTIALS; do unset "CMAX_MAX_INPUT_MB_$k"; done

writers=()
trap 'for p in "${writers[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
# A memory ceiling, so that a regression to an unbounded read fails the
# test instead of eating the machine; not under ASan, whose shadow memory
# needs an unlimited address space.
MEMCAP=
grep -aq __asan_init "$CMAX" || MEMCAP=4000000

# run_t CMD...: $RC and $MS (wall milliseconds) of CMD under timeout 10 s;
# stdin from $IN (default /dev/null), stdout/stderr in $TMP/out, $TMP/err.
run_t() {
	local t0 t1
	t0=$(date +%s%N)
	(
		[ -n "$MEMCAP" ] && ulimit -v "$MEMCAP"
		exec timeout 10 "$@"
	) <"${IN:-/dev/null}" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	t1=$(date +%s%N)
	MS=$(((t1 - t0) / 1000000))
}
# refused DESC RC TEXT CMD...: exit RC within 5 s, one line on stderr holding TEXT.
refused() {
	local d=$1 want=$2 text=$3; shift 3
	run_t "$@"
	if [ "$RC" = "$want" ] && [ "$MS" -lt 5000 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -qF -- "$text" "$TMP/err"; then
		ok "$d (exit $RC in $MS ms)"
	else
		not_ok "$d (exit $RC in $MS ms, want $want within 5000 ms and '$text')"
		head -c 600 "$TMP/err" | diag
	fi
}
# accepted DESC RC CMD...: exit RC (what the same input gives as a plain file), no cap message.
accepted() {
	local d=$1 want=$2; shift 2
	run_t "$@"
	if [ "$RC" = "$want" ] && ! grep -q 'cap for\|not a regular file\|did not end' "$TMP/err"; then
		ok "$d (exit $RC)"
	else
		not_ok "$d (exit $RC, want $want)"
		head -c 600 "$TMP/err" | diag
	fi
}
CHR="a character device, not a regular file"

# --- devices: /dev/zero never ends, /dev/null is no document
refused "sla --events /dev/zero: 65 within 5 s" 65 "/dev/zero: $CHR" "$CMAX" sla --events /dev/zero "${NV[@]}"
refused "sla --events /dev/null: 65, a device" 65 "/dev/null: $CHR" "$CMAX" sla --events /dev/null "${NV[@]}"
refused "sla --layout /dev/zero: 65" 65 "/dev/zero: $CHR" "$CMAX" sla --events "$EV" --layout /dev/zero --period 2026-11
refused "rate /dev/zero: 65" 65 "/dev/zero: $CHR" "$CMAX" rate /dev/zero
refused "rate /dev/null: 65" 65 "/dev/null: $CHR" "$CMAX" rate /dev/null
refused "rate --attestation /dev/zero: 65" 65 "/dev/zero: $CHR" "$CMAX" rate --attestation /dev/zero "$RDOC"
refused "accept --from-results /dev/zero: 65" 65 "/dev/zero: $CHR" "$CMAX" accept hgx-8gpu --from-results /dev/zero
refused "accept with the plan /dev/zero: 65" 65 "/dev/zero: $CHR" "$CMAX" accept /dev/zero --from-results "$ARES"
refused "accept --previous /dev/zero: 65" 65 "/dev/zero: $CHR" \
	"$CMAX" accept hgx-8gpu --from-results "$ARES" --previous /dev/zero
refused "bench --thresholds /dev/zero: 65" 65 "/dev/zero: $CHR" \
	"$CMAX" bench storage --thresholds /dev/zero --path "$TMP" --dry-run
mkdir -p "$TMP/rv"
ln -s /dev/zero "$TMP/rv/audit.results.json"
refused "audit review of a run whose results are /dev/zero: 65" 65 "audit.results.json: $CHR" \
	"$CMAX" audit review "$TMP/rv" --command summary
# on a fixture host tree, so nothing of this machine is audited
mkdir -p "$TMP/nobin"
run_t env PATH="$TMP/nobin" CMAX_NOW=2026-11-30T12:00:00Z HOME="$TMP/home" "$CMAX" audit --sysroot \
	"$SRCDIR/tests/fixtures/hosts/h100-healthy/root" --local --minimums /dev/zero --yes --output-dir "$TMP/aud"
if [ "$RC" = 65 ] && [ "$MS" -lt 5000 ] && grep -qF "/dev/zero: $CHR" "$TMP/err" && [ ! -e "$TMP/aud/audit.results.json" ]; then
	ok "audit --minimums /dev/zero: 65 before any check runs"
else
	not_ok "audit --minimums /dev/zero: 65 before any check runs (exit $RC in $MS ms)"
	head -c 600 "$TMP/err" | diag
fi

# --- a socket, a block device, a directory
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"
refused "sla --events on a socket: 65" 65 "a socket, not a regular file" "$CMAX" sla --events "$TMP/sock" "${NV[@]}"
if [ "$(id -u)" = 0 ] && mknod "$TMP/blk" b 7 255 2>/dev/null; then
	# refused from stat(), before any open(): the device is never touched
	refused "sla --events on a block device: 65" 65 "a block device, not a regular file" \
		"$CMAX" sla --events "$TMP/blk" "${NV[@]}"
else
	skip "sla --events on a block device (needs root and mknod)"
fi
refused "sla --events on a directory: 65" 65 "a directory, not a regular file" "$CMAX" sla --events "$TMP" "${NV[@]}"
refused "sla --layout on a directory: 65" 65 "a directory, not a regular file" \
	"$CMAX" sla --events "$EV" --layout "$TMP" --period 2026-11

# --- empty regular files: each command's own message, not a device refusal
: >"$TMP/empty"
refused "sla on an empty file: 65, says empty" 65 "empty" "$CMAX" sla --events "$TMP/empty" "${NV[@]}"
refused "rate on an empty file: 65, not JSON" 65 "not valid JSON" "$CMAX" rate "$TMP/empty"

# --- FIFOs and pipes
mkfifo "$TMP/fifo"
refused "a FIFO with no writer: 65 at the deadline, no hang in open()" 65 "did not end within 1 s" \
	env CMAX_INPUT_TIMEOUT_S=1 "$CMAX" sla --events "$TMP/fifo" "${NV[@]}"
sleep 30 >"$TMP/fifo" &
writers+=($!)
refused "a writer that keeps the FIFO open and silent: 65 at the deadline" 65 "did not end within 1 s" \
	env CMAX_INPUT_TIMEOUT_S=1 "$CMAX" sla --events "$TMP/fifo" "${NV[@]}"
refused "the same for rate" 65 "did not end within 1 s" env CMAX_INPUT_TIMEOUT_S=1 "$CMAX" rate "$TMP/fifo"
kill "${writers[-1]}" 2>/dev/null
wait "${writers[-1]}" 2>/dev/null
yes >"$TMP/fifo" 2>/dev/null &
writers+=($!)
refused "an endless writer stops at the cap: 65" 65 "larger than the 1 MiB cap for event histories" \
	env CMAX_MAX_INPUT_MB_EVENTS=1 "$CMAX" sla --events "$TMP/fifo" "${NV[@]}"
kill "${writers[-1]}" 2>/dev/null
wait "${writers[-1]}" 2>/dev/null
"$CMAX" sla --events "$EV" "${NV[@]}" --json >"$TMP/ref.json" 2>/dev/null
want=$?
cat "$EV" >"$TMP/fifo" &
writers+=($!)
# same_as_file NAME: $TMP/out is $TMP/ref.json but for the input's name (sla cites "FILE:LINE")
same_as_file() { sed "s|\"$1\"|\"$EV\"|g; s|\"$1:|\"$EV:|g" "$TMP/out" | cmp -s - "$TMP/ref.json"; }
accepted "a FIFO whose writer ends is read" "$want" "$CMAX" sla --events "$TMP/fifo" "${NV[@]}" --json
check "  with the same result as the file" same_as_file "$TMP/fifo"
IN=$EV accepted "--events - reads standard input" "$want" "$CMAX" sla --events - "${NV[@]}" --json
check "  with the same result as the file" same_as_file -
ln -s "$EV" "$TMP/link.csv"
accepted "a symlink to a regular file is followed" "$want" "$CMAX" sla --events "$TMP/link.csv" "${NV[@]}" --json
ln -s /dev/zero "$TMP/zero.csv"
refused "a symlink to /dev/zero is refused on what it opens" 65 "$CHR" "$CMAX" sla --events "$TMP/zero.csv" "${NV[@]}"

# --- sizes: a sparse 8 GiB file from its size, without reading it
if truncate -s 8G "$TMP/sparse" 2>/dev/null; then
	refused "a sparse 8 GiB history: 65 from its size" 65 "larger than the 512 MiB cap for event histories" \
		"$CMAX" sla --events "$TMP/sparse" "${NV[@]}"
	rm -f "$TMP/sparse"
else
	skip "a sparse 8 GiB history (no sparse files here)"
fi

# pad FILE OUT BYTES: FILE followed by one line of spaces up to BYTES (JSON,
# YAML and CSV all read trailing white space as nothing; one line, so the
# parsers stay fast under ASan)
pad() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); n=int(sys.argv[3]); assert len(d)+1<n; open(sys.argv[2],"wb").write(d+b" "*(n-len(d)-1)+b"\n")' "$@"; }
MB=1048576
pad "$EV" "$TMP/ev-over.csv" $((MB + 1))
pad "$EV" "$TMP/ev-at.csv" $MB
refused "a history 1 byte over a 1 MiB cap: 65, names the override" 65 "CMAX_MAX_INPUT_MB_EVENTS=N" \
	env CMAX_MAX_INPUT_MB_EVENTS=1 "$CMAX" sla --events "$TMP/ev-over.csv" "${NV[@]}"
accepted "a history of exactly the cap is read" "$want" \
	env CMAX_MAX_INPUT_MB_EVENTS=1 "$CMAX" sla --events "$TMP/ev-at.csv" "${NV[@]}"
accepted "CMAX_MAX_INPUT_MB_EVENTS=2 raises it" "$want" \
	env CMAX_MAX_INPUT_MB_EVENTS=2 "$CMAX" sla --events "$TMP/ev-over.csv" "${NV[@]}"
refused "the global CMAX_MAX_INPUT_MB applies to every kind" 65 "larger than the 1 MiB cap" \
	env CMAX_MAX_INPUT_MB=1 "$CMAX" sla --events "$TMP/ev-over.csv" "${NV[@]}"
accepted "the per-kind override wins over the global one" "$want" \
	env CMAX_MAX_INPUT_MB=1 CMAX_MAX_INPUT_MB_EVENTS=2 "$CMAX" sla --events "$TMP/ev-over.csv" "${NV[@]}"

pad "$SLA/nvl72/layout.yaml" "$TMP/layout-over.yaml" $((MB + 1))
refused "a layout 1 byte over the policy cap: 65" 65 "larger than the 1 MiB cap for policy files" \
	env CMAX_MAX_INPUT_MB_POLICY=1 "$CMAX" sla --events "$EV" --layout "$TMP/layout-over.yaml" --period 2026-11
accepted "CMAX_MAX_INPUT_MB_POLICY=2 raises it" "$want" \
	env CMAX_MAX_INPUT_MB_POLICY=2 "$CMAX" sla --events "$EV" --layout "$TMP/layout-over.yaml" --period 2026-11

"$CMAX" rate "$RDOC" >/dev/null 2>&1
rwant=$?
pad "$RDOC" "$TMP/doc-over.json" $((MB + 1))
refused "rate: a document 1 byte over the results cap: 65" 65 "larger than the 1 MiB cap for result documents" \
	env CMAX_MAX_INPUT_MB_RESULTS=1 "$CMAX" rate "$TMP/doc-over.json"
accepted "rate: CMAX_MAX_INPUT_MB_RESULTS=2 raises it" "$rwant" \
	env CMAX_MAX_INPUT_MB_RESULTS=2 "$CMAX" rate "$TMP/doc-over.json"
mkdir -p "$TMP/ares"
cp "$ARES"/*.json "$TMP/ares/"
"$CMAX" accept hgx-8gpu --from-results "$TMP/ares" >/dev/null 2>&1
awant=$?
pad "$ARES/metadata.json" "$TMP/ares/metadata.json" $((MB + 1))
refused "accept --from-results: a document 1 byte over the cap: 65" 65 "larger than the 1 MiB cap for result documents" \
	env CMAX_MAX_INPUT_MB_RESULTS=1 "$CMAX" accept hgx-8gpu --from-results "$TMP/ares"
accepted "accept: CMAX_MAX_INPUT_MB_RESULTS=2 raises it" "$awant" \
	env CMAX_MAX_INPUT_MB_RESULTS=2 "$CMAX" accept hgx-8gpu --from-results "$TMP/ares"
mkdir -p "$TMP/rv2"
pad "$AUDIT" "$TMP/rv2/audit.results.json" $((MB + 1))
refused "audit review: results 1 byte over the cap: 65" 65 "larger than the 1 MiB cap for result documents" \
	env CMAX_MAX_INPUT_MB_RESULTS=1 "$CMAX" audit review "$TMP/rv2" --command summary
accepted "audit review: CMAX_MAX_INPUT_MB_RESULTS=2 raises it" 0 \
	env CMAX_MAX_INPUT_MB_RESULTS=2 "$CMAX" audit review "$TMP/rv2" --command summary

# --- malformed overrides are usage errors, before any command runs
for v in "CMAX_MAX_INPUT_MB=abc" "CMAX_MAX_INPUT_MB=0" "CMAX_MAX_INPUT_MB_EVENTS=1.5" \
	"CMAX_MAX_INPUT_MB_POLICY=-1" "CMAX_INPUT_TIMEOUT_S=0"; do
	refused "$v: 64" 64 "${v}: not a whole number" env "$v" "$CMAX" sla --events "$EV" "${NV[@]}"
done
done_testing
