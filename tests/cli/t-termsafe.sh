#!/usr/bin/env bash
# Outside strings never reach the terminal raw (issue 11, defect 6): result
# documents whose host names, summaries, provider and plan names hold ESC,
# BEL, CR, a C1 CSI and a newline (an OSC retitle, a line erase, a fake PASS
# on a line of its own) are shown escaped by `rate -vv`, `audit review`,
# `accept -vv` and the audit's own text report and audit.out, while every
# JSON output keeps the exact strings.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
if ! command -v python3 >/dev/null; then
	skip "python3 is needed to write the hostile documents"
	done_testing; exit
fi
# the interpreter itself first on PATH: a pyenv shim costs half a second a start
PY=$(python3 -c 'import sys; print(sys.executable)'); PATH=$(dirname "$PY"):$PATH
H=$SRCDIR/tests/fixtures/hosts

# The hostile strings, as the documents hold them (python escapes):
#   host     gpu017 ESC]0;owned BEL  (an OSC 2 title change)
#   summary  ESC[2K CR "PASS all good" BEL NL "FORGED PASS hardware.gpu-count"
#   provider Acme ESC]0;t BEL CR C1-CSI(U+009B)31m
python3 - "$TMP" "$H" "$SRCDIR/tests/fixtures/rate/base/attestation.yaml" <<'EOF' || not_ok "write the hostile documents"
import json, sys, os, re
tmp, hosts, att = sys.argv[1:4]
HOST = "gpu017\x1b]0;owned\x07"
BAD = "\x1b[2K\rPASS all good\x07\nFORGED PASS hardware.gpu-count "
def hostile(src, dst):
    d = json.load(open(src))
    d["target"]["hosts"] = [HOST]
    for r in d["results"]:
        r["host"] = HOST
        r["summary"] = BAD + (r.get("summary") or "")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    json.dump(d, open(dst, "w"), indent=1)
# rate: one provider directory, the attestation with a hostile provider name
hostile(hosts + "/misconfig-h100/expected.json", tmp + "/rate/audit.json")
a = open(att).read()
a = re.sub(r"(?m)^provider: .*$", lambda m: r'provider: "Acme\e]0;t\a\r\u009b31m"', a)
open(tmp + "/rate/attestation.yaml", "w").write(a)
# review: a run directory, audit.out with raw control bytes in it too
hostile(hosts + "/misconfig-h100/expected.json", tmp + "/run/audit.results.json")
open(tmp + "/run/audit.out", "w").write("# host " + HOST + "\n" + BAD + "\n")
# accept: the recorded documents of a passing set, the audit one hostile
hostile(hosts + "/h100-healthy/expected.json", tmp + "/acc/audit.json")
EOF
R=$SRCDIR/tests/fixtures/accept/results
cp "$R/metadata.json" "$R/storage.json" "$R/storage-endurance.json" "$R/inject-xid79.json" "$R/reboot.json" "$TMP/acc/"
# the plan's own name and a title with the same controls (YAML escapes)
sed -e 's/^name: .*/name: "accept\\e]0;plan\\a\\rFORGED"/' \
    -e 's/title: "Audit: no FAIL in hardware"/title: "Audit\\e[2K\\r\\nFORGED PASS"/' \
	"$SRCDIR/tests/fixtures/accept/small.yaml" >"$TMP/plan.yaml"

# raw FILE: 0 when FILE holds a raw ESC, BEL, CR, BS, DEL or C1 CSI (0xC2 0x9B)
raw() { LC_ALL=C grep -qaP '[\x1b\x07\x0d\x08\x7f]|\xc2\x9b' "$1"; }
forged() { grep -qa '^FORGED' "$1"; }
clean() { ! raw "$1" && ! forged "$1"; }

# ---- rate -vv: hosts, summaries (row details), provider
"$CMAX" rate "$TMP/rate" -vv >"$TMP/rate.txt" 2>"$TMP/rate.err"; rc=$?
check "rate -vv: exit 0 (got $rc)" test $rc = 0
check "rate -vv: no raw control byte and no forged line on stdout" clean "$TMP/rate.txt"
check "rate -vv: the host is shown, escaped" grep -qF 'gpu017\e]0;owned\a' "$TMP/rate.txt"
check "rate -vv: the provider is shown, escaped" grep -qF 'cmax rate: Acme\e]0;t\a\r\u009b31m' "$TMP/rate.txt"
"$CMAX" rate "$TMP/rate" --json >"$TMP/rate.json" 2>/dev/null
check "rate --json keeps the exact provider and hosts" python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["provider"] == "Acme\x1b]0;t\x07\r\x9b31m", d["provider"]
assert "gpu017\\u001b]0;owned\\u0007" in json.dumps(d)' "$TMP/rate.json"

# ---- audit review: summary, show, find, raw (audit.out read back)
"$CMAX" audit review "$TMP/run" --no-color --command summary --command 'show 1' --command 'find FORGED' \
	--command raw >"$TMP/review.txt" 2>"$TMP/review.err"; rc=$?
check "audit review: exit 0 (got $rc)" test $rc = 0
check "audit review: no raw control byte and no forged line on stdout" clean "$TMP/review.txt"
check "audit review: the summary is shown, escaped on one line" \
	grep -qF '\e[2K\rPASS all good\a\nFORGED PASS hardware.gpu-count' "$TMP/review.txt"
check "audit review: the host of the run is shown, escaped" grep -qF 'host gpu017\e]0;owned\a' "$TMP/review.txt"
check "audit review: raw audit.out lines escaped, the line breaks kept" grep -qE '^ +2: \\e\[2K\\rPASS all good\\a$' "$TMP/review.txt"

# ---- accept -vv: the plan's strings and a hostile audit document
"$CMAX" accept "$TMP/plan.yaml" --from-results "$TMP/acc" --date 2026-12-01 -vv >"$TMP/acc.txt" 2>"$TMP/acc.err"; rc=$?
check "accept -vv: judged (exit $rc)" test $rc -lt 64
check "accept -vv: no raw control byte and no forged line on stdout" clean "$TMP/acc.txt"
check "accept -vv: no raw control byte on stderr" bash -c "! LC_ALL=C grep -qaP '[\x1b\x07\x0d]' '$TMP/acc.err'"
check "accept -vv: plan name and title shown, escaped" bash -c \
	"grep -qF 'cmax accept: accept\e]0;plan\a\rFORGED' '$TMP/acc.txt' && grep -qF 'Audit\e[2K\r\nFORGED PASS' '$TMP/acc.txt'"
"$CMAX" accept "$TMP/plan.yaml" --from-results "$TMP/acc" --date 2026-12-01 --json >"$TMP/acc.json" 2>/dev/null
check "accept --json keeps the exact plan name and title" python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["plan"]["name"] == "accept\x1b]0;plan\x07\rFORGED", d["plan"]["name"]
assert d["tests"][0]["title"] == "Audit\x1b[2K\r\nFORGED PASS", d["tests"][0]["title"]' "$TMP/acc.json"

# ---- the audit itself: a sysroot whose host name is hostile. The collector
# keeps facts valid text (str_sanitize in core/strbuf.h: a control byte
# becomes '?'), so nothing raw reaches the report; this guards that it stays so.
mkdir -p "$TMP/host" "$TMP/abin" "$TMP/ahome"
cp -a "$H/cpu-only/." "$TMP/host/"
printf 'cpu\033]0;owned\007\rFORGED-host\n' >"$TMP/host/root/etc/hostname"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/host/cmd" "$BUILD/fakecmd" "$TMP/abin" >/dev/null
(cd "$TMP/host" && env -i HOME="$TMP/ahome" PATH="$TMP/abin" TZ=UTC $(grep -v '^#' env) \
	CMAX_FAKE_DIR="$TMP/host/cmd" CMAX_FAKE_LOG="$TMP/fake.log" CMAX_DATADIR="$SRCDIR/data" \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	"$CMAX" audit --sysroot root --local --yes --no-color --output-dir "$TMP/a1" -vvv) >"$TMP/audit.txt" 2>"$TMP/audit.err"
rc=$?
check "audit: a hostile host name audits (exit $rc)" test $rc = 0
check "audit: text report without raw control bytes or a forged line" clean "$TMP/audit.txt"
check "audit: audit.out without raw control bytes or a forged line" clean "$TMP/a1/audit.out"
done_testing
