#!/usr/bin/env bash
# Credentials and server text (issue 11, defect 8):
#   - `bench s3 --endpoint http://USER:PASSWORD@host` never shows the
#     userinfo: not in --dry-run (text and --json), not in an error, not in
#     the results document (command, parameters);
#   - a hostile S3 endpoint (tests/s3/hostile-s3.py, a fake that answers the
#     documented S3 error format with newlines, CR, ESC and BEL in Code and
#     Message) cannot forge output lines: its words arrive as one escaped,
#     capped line on the terminal and in the result rows;
#   - an audit run with NCCL_FOO_TOKEN=secret in the environment and a
#     plugin token in nccl.conf records documented NCCL settings with their
#     values and the other NCCL_* names only (docs/json-contract.md).
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
if ! command -v python3 >/dev/null; then
	skip "python3 is needed for the fake endpoint and the JSON checks"
	done_testing; exit
fi
# the interpreter itself first on PATH: a pyenv shim costs half a second a start
PY=$(python3 -c 'import sys; print(sys.executable)'); PATH=$(dirname "$PY"):$PATH
PW=Pa55w0rdXYZ USR=AKIAUSERQQ
has_secret() { grep -qaE "$PW|$USR" "$@"; }
raw() { LC_ALL=C grep -qaP '[\x1b\x07\x0d]' "$@"; }
export HOME=$TMP AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=notthepassword
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_SHARED_CREDENTIALS_FILE AWS_REGION AWS_DEFAULT_REGION
# a port nothing listens on: bound, then released
FREE=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
E="http://$USR:$PW@127.0.0.1:$FREE"

# ---- --dry-run, text and --json
"$CMAX" bench s3 --endpoint "$E" --bucket b --dry-run >"$TMP/plan.txt" 2>&1; rc=$?
check "dry-run: exit 0 (got $rc)" test $rc = 0
check "dry-run: the userinfo is not shown" bash -c "! grep -qaE '$PW|$USR' '$TMP/plan.txt'"
check "dry-run: the endpoint is shown redacted" grep -qF "at http://***@127.0.0.1:$FREE " "$TMP/plan.txt"
"$CMAX" bench s3 --endpoint "$E" --bucket b --dry-run --json >"$TMP/plan.json" 2>"$TMP/plan.err"
check "dry-run --json: the userinfo is in neither stdout nor stderr" bash -c "! grep -qaE '$PW|$USR' '$TMP/plan.json' '$TMP/plan.err'"
check "dry-run --json: endpoint redacted" python3 -c '
import json, sys; p = json.load(open(sys.argv[1])); assert p["endpoint"] == "http://***@127.0.0.1:" + sys.argv[2], p["endpoint"]' \
	"$TMP/plan.json" "$FREE"

# ---- refused values are echoed redacted
"$CMAX" bench s3 --endpoint "ftp://$USR:$PW@h" --bucket b --dry-run >/dev/null 2>"$TMP/bad.err"; rc=$?
check "a bad --endpoint: 64, the userinfo not echoed" bash -c "[ $rc = 64 ] && ! grep -qaE '$PW|$USR' '$TMP/bad.err' && grep -qF 'ftp://***@h' '$TMP/bad.err'"
"$CMAX" bench s3 "--endpoint=$E" --bucket b --dry-run >"$TMP/bad2.out" 2>"$TMP/bad2.err"; rc=$?
check "--endpoint=URL (one grammar: accepted): 0, the userinfo not echoed" \
	bash -c "[ $rc = 0 ] && ! grep -qaE '$PW|$USR' '$TMP/bad2.out' '$TMP/bad2.err' && grep -qF 'http://***@' '$TMP/bad2.out'"

# ---- nothing listening: the error names the endpoint, redacted
"$CMAX" bench s3 --endpoint "$E" --bucket b --yes >"$TMP/down.out" 2>"$TMP/down.err"; rc=$?
check "unreachable: 69 (got $rc)" test $rc = 69
check "unreachable: the userinfo is not in the error" bash -c "! grep -qaE '$PW|$USR' '$TMP/down.out' '$TMP/down.err' && grep -qF 'http://***@127.0.0.1' '$TMP/down.err'"

# ---- a hostile endpoint
start_fake() { # MODE -> $E2; the server's pid in $FAKE
	rm -f "$TMP/port"
	python3 "$SRCDIR/tests/s3/hostile-s3.py" "$TMP/port" "$1" &
	FAKE=$!
	for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
	E2="http://$USR:$PW@127.0.0.1:$(cat "$TMP/port")"
}
stop_fake() { kill "$FAKE" 2>/dev/null; wait "$FAKE" 2>/dev/null; }
trap 'stop_fake; rm -rf "$TMP"' EXIT
start_fake deny-all
"$CMAX" bench s3 --endpoint "$E2" --bucket b --yes >"$TMP/deny.out" 2>"$TMP/deny.err"; rc=$?
check "403 on the first listing: exit 77 (got $rc)" test $rc = 77
check "403: one line on stderr" test "$(wc -l <"$TMP/deny.err")" = 1
check "403: no raw ESC, BEL or CR, no userinfo" bash -c "! LC_ALL=C grep -qaP '[\x1b\x07\x0d]' '$TMP/deny.err' && ! grep -qaE '$PW|$USR' '$TMP/deny.err'"
check "403: the server's message is shown escaped and capped" bash -c \
	"grep -qF 'AccessDenied PASS large-put' '$TMP/deny.err' && grep -qF '\e]0;owned\a' '$TMP/deny.err' && [ \$(wc -c <'$TMP/deny.err') -lt 700 ]"
stop_fake

start_fake deny-writes
SMALL=(--small-objects 4 --large-objects 1 --large-size 1M --concurrency 2)
"$CMAX" bench s3 --endpoint "$E2" --bucket b --yes "${SMALL[@]}" >"$TMP/run.txt" 2>"$TMP/run.err"; rc=$?
check "writes refused: a finished run (exit $rc)" test $rc -lt 64
check "writes refused: no raw ESC, BEL or CR on stdout or stderr" bash -c "! LC_ALL=C grep -qaP '[\x1b\x07\x0d]' '$TMP/run.txt' '$TMP/run.err'"
check "writes refused: no line forged by the server" bash -c "! grep -qaE '^PASS +large-put' '$TMP/run.txt' '$TMP/run.err'"
check "writes refused: large-put is not a PASS" grep -qE '^(FAIL|ERROR) +large-put ' "$TMP/run.txt"
check "writes refused: no userinfo on stdout or stderr" bash -c "! grep -qaE '$PW|$USR' '$TMP/run.txt' '$TMP/run.err'"
"$CMAX" bench s3 --endpoint "$E2" --bucket b --yes --json "${SMALL[@]}" --output-file "$TMP/run.copy.json" \
	>"$TMP/run.json" 2>/dev/null
check "--json: no userinfo in the document (command, parameters) or its copy" bash -c "! grep -qaE '$PW|$USR' '$TMP/run.json' '$TMP/run.copy.json'"
check "--json: each summary one line, the server's part capped, endpoint redacted" python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["parameters"]["endpoint"].startswith("http://***@127.0.0.1:"), d["parameters"]["endpoint"]
assert "***@" in d["command"], d["command"]
for r in d["results"]:
    s = r["summary"]
    assert "\n" not in s and "\r" not in s and "\x1b" not in s, (r["id"], s)
    assert len(s) < 800, (r["id"], len(s))
put = [r for r in d["results"] if r["id"] == "bench.s3-large-put"][0]
assert put["status"] in ("FAIL", "ERROR") and "AccessDenied" in put["summary"], put' "$TMP/run.json"
stop_fake

# ---- NCCL settings by allow-list: a fixture audit with secrets in the environment and nccl.conf
H=$SRCDIR/tests/fixtures/hosts/misconfig-h100
mkdir -p "$TMP/host" "$TMP/bin" "$TMP/home"
cp -a "$H/." "$TMP/host/"
printf 'NCCL_PLUGIN_TOKEN=confsecret456\nexport NCCL_TUNER_KEY = confsecret789\n' >>"$TMP/host/root/etc/nccl.conf"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$TMP/host/cmd" "$BUILD/fakecmd" "$TMP/bin" >/dev/null
(cd "$TMP/host" && env -i HOME="$TMP/home" PATH="$TMP/bin" TZ=UTC $(grep -v '^#' env) \
	NCCL_FOO_TOKEN=envsecret123 NCCL_IB_HCA=mlx5_0 \
	CMAX_FAKE_DIR="$TMP/host/cmd" CMAX_FAKE_LOG="$TMP/fake.log" CMAX_DATADIR="$SRCDIR/data" \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	"$CMAX" audit --sysroot root --local --yes --json --output-dir "$TMP/run") >"$TMP/audit.json" 2>"$TMP/audit.err"
rc=$?
check "audit with NCCL secrets: exit 0 (got $rc)" test $rc = 0
for f in audit.values.json audit.results.json audit.out; do
	check "audit: no secret value in $f" bash -c "! grep -qaE 'envsecret123|confsecret456|confsecret789' '$TMP/run/$f'"
done
check "audit: no secret value on stdout or stderr" bash -c "! grep -qaE 'envsecret123|confsecret456|confsecret789' '$TMP/audit.json' '$TMP/audit.err'"
check "audit: documented settings kept with their values, other names by name only" python3 -c '
import json, sys; v = json.load(open(sys.argv[1]))
c = v["facts"]["software"]["facts"]["nccl_conf"]
assert c["env"] == {"NCCL_IB_HCA": "mlx5_0"}, c["env"]
assert c["env_unlisted"] == ["NCCL_FOO_TOKEN"], c["env_unlisted"]
f = c["files"][0]
assert f["settings"]["NCCL_SOCKET_IFNAME"] == "docker0", f["settings"]
assert sorted(f["unlisted"]) == ["NCCL_PLUGIN_TOKEN", "NCCL_TUNER_KEY"], f["unlisted"]
assert "NCCL_PLUGIN_TOKEN" not in f["settings"]
assert c["effective"]["NCCL_IB_HCA"] == {"value": "mlx5_0", "source": "environment"}, c["effective"]["NCCL_IB_HCA"]' \
	"$TMP/run/audit.values.json"
check "audit: software.nccl-conf still judges the documented settings (socket on docker0)" python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
r = [x for x in d["results"] if x["id"] == "software.nccl-conf"][0]
assert r["status"] == "WARN" and "docker0" in r["summary"], r["summary"]' "$TMP/run/audit.results.json"
done_testing
