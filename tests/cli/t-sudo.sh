#!/usr/bin/env bash
# Privileged reads through sudo -n (core/privilege.h), on fixture hosts
# whose tenant has passwordless sudo and whose sysfs gives it 64 bytes of
# PCI configuration space: by default the ACS control of the GPU/NIC
# bridges is read with `sudo -n lspci -xxxx -s BDF` and graded (PASS on
# b300-healthy, FAIL on misconfig-b300); --no-sudo SKIPs it saying so and
# runs no sudo at all; --dry-run lists every command that would use sudo.
# A logging wrapper in front of the fake sudo records every invocation:
# the set must be exactly the read-only table, each call recorded.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

# run_sudo HOST OUT [args...]: run_fixture, with sudo's argv logged to OUT/sudo.log
run_sudo() {
	local host=$1 out=$2; shift 2
	local hd=$SRCDIR/tests/fixtures/hosts/$host
	mkdir -p "$out/bin" "$out/home"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	rm -f -- "$out/bin/sudo"
	cat >"$out/bin/sudo" <<-EOF
		#!/bin/bash
		printf '%s\n' "\$*" >>"$out/sudo.log"
		exec -a sudo "$BUILD/fakecmd" "\$@"
	EOF
	chmod +x "$out/bin/sudo"
	: >"$out/fake.log"
	: >"$out/sudo.log"
	(
		cd "$hd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
			CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --sysroot root "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
}

# row FILE ID FIELD: a field of one row of a --json report
row() {
	"${PYTHON:-/usr/bin/python3}" - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["results"] if x["id"] == sys.argv[2]]
print(r[0].get(sys.argv[3], "") if r else "(no row)")
EOF
}

# The read-only table (core/privilege.c priv_reads[]) as sudo sees it.
readonly_re='^-n (true|lspci -xxxx -s [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]|dmidecode -t system -t baseboard -t bios|ipmitool mc info|mlxconfig -d [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] q INTERNAL_CPU_RSHIM)$'

# recorded_sudo HOST: every recorded sudo argv of the host, one line each
recorded_sudo() {
	for a in "$SRCDIR/tests/fixtures/hosts/$1"/cmd/sudo/*/argv; do
		tr '\n' ' ' <"$a" | sed 's/ $//'
		echo
	done | sort
}

for host in b300-healthy misconfig-b300; do
	out=$TMP/$host
	run_sudo "$host" "$out" --local --yes --json --output-dir "$out/run"
	check "$host: audit exits 0 (got $(cat "$out/rc"))" test "$(cat "$out/rc")" = 0
	check "$host: no unrecorded tool invocation" test ! -s "$out/fake.log"
	[ -s "$out/fake.log" ] && diag <"$out/fake.log"
	if grep -Evq "$readonly_re" "$out/sudo.log"; then
		not_ok "$host: every sudo invocation is a read of the table"; grep -Ev "$readonly_re" "$out/sudo.log" | diag
	else
		ok "$host: every sudo invocation is a read of the table ($(wc -l <"$out/sudo.log") calls)"
	fi
	sort "$out/sudo.log" >"$out/sudo.sorted"
	check "$host: sudo ran exactly the recorded reads, each once" cmp -s "$out/sudo.sorted" <(recorded_sudo "$host")
	check "$host: sudo -n true ran once (the policy is decided once)" \
		test "$(grep -cx -- '-n true' "$out/sudo.log")" = 1
	check "$host: ACS read through sudo -n lspci -xxxx" grep -q 'sudo -n lspci -xxxx -s 0000:17:00.0' "$out/stdout"
done

check "b300-healthy: hardware.pcie-acs PASS through sudo" \
	test "$(row "$TMP/b300-healthy/stdout" hardware.pcie-acs status)" = PASS
check "misconfig-b300: hardware.pcie-acs FAIL (redirect on, read through sudo)" \
	test "$(row "$TMP/misconfig-b300/stdout" hardware.pcie-acs status)" = FAIL
row "$TMP/misconfig-b300/stdout" hardware.pcie-acs summary | grep -q 'ReqRedir CmpltRedir' &&
	ok "misconfig-b300: the FAIL names the redirect bits" || not_ok "misconfig-b300: the FAIL names the redirect bits"
grep -q 'platform: Dell Inc. PowerEdge XE9780, baseboard 0K4T7N, BIOS 1.4.2' "$TMP/b300-healthy/stdout" &&
	ok "b300-healthy: the DMI records (sudo -n dmidecode) are evidence" ||
	not_ok "b300-healthy: the DMI records (sudo -n dmidecode) are evidence"
if "${PYTHON:-/usr/bin/python3}" - "$TMP/b300-healthy/run/audit.values.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
dmi = d["facts"]["dmi"]
f = dmi["facts"]
assert dmi["state"] == "ok", dmi
assert f["bios"]["version"] == "1.4.2" and f["system"]["product_name"] == "PowerEdge XE9780", f
assert "serial_number" not in f["system"] and "uuid" not in f["system"], f
EOF
then ok "b300-healthy: dmi facts without serial numbers"; else not_ok "b300-healthy: dmi facts without serial numbers"; fi

# --no-sudo: no sudo at all, and the ACS row says why it could not be read
out=$TMP/nosudo
run_sudo misconfig-b300 "$out" --local --yes --json --no-sudo --output-dir "$out/run"
check "--no-sudo: audit exits 0" test "$(cat "$out/rc")" = 0
check "--no-sudo: sudo never ran (not even sudo -n true)" test ! -s "$out/sudo.log"
check "--no-sudo: hardware.pcie-acs SKIP" test "$(row "$out/stdout" hardware.pcie-acs status)" = SKIP
row "$out/stdout" hardware.pcie-acs summary | grep -q 'not read with privilege: --no-sudo' &&
	ok "--no-sudo: the SKIP gives the reason" || { not_ok "--no-sudo: the SKIP gives the reason"; row "$out/stdout" hardware.pcie-acs summary | diag; }
check "--no-sudo: access.sudo SKIP (not probed)" test "$(row "$out/stdout" access.sudo status)" = SKIP
check "--no-sudo: no unrecorded tool invocation" test ! -s "$out/fake.log"

# --dry-run lists every command that would use sudo, and runs none of them
out=$TMP/dry
run_sudo b300-healthy "$out" --local --dry-run
check "--dry-run: exits 0" test "$(cat "$out/rc")" = 0
for c in 'sudo -n true' 'sudo -n lspci -xxxx -s <bdf>' 'sudo -n dmidecode -t system -t baseboard -t bios' \
	'sudo -n ipmitool mc info'; do
	check "--dry-run lists: $c" grep -qF -- "$c" "$out/stdout"
done
check "--dry-run: says sudo is used when sudo -n true succeeds" grep -q 'sudo policy auto: if sudo -n true succeeds' "$out/stdout"
check "--dry-run: ran no sudo" test ! -s "$out/sudo.log"
out=$TMP/dryjson
run_sudo b300-healthy "$out" --local --dry-run -o json --no-sudo
if "${PYTHON:-/usr/bin/python3}" - "$out/stdout" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["privileged_reads"]
assert p["policy"] == "off" and p["would_use_sudo"] == "no (--no-sudo)", p
cmds = [c["command"] for c in p["commands"]]
assert "sudo -n lspci -xxxx -s <bdf>" in cmds and "sudo -n true" in cmds, cmds
assert all(c["changes_state"] is False for c in p["commands"])
EOF
then ok "--dry-run -o json: privileged_reads with the policy (--no-sudo)"; else not_ok "--dry-run -o json: privileged_reads"; fi

# --sudo and --no-sudo together are a usage error
out=$TMP/both
run_sudo b300-healthy "$out" --local --sudo --no-sudo
check "--sudo --no-sudo: exit 64" test "$(cat "$out/rc")" = 64
check "--sudo --no-sudo: one line on stderr" test "$(wc -l <"$out/stderr")" = 1
done_testing
