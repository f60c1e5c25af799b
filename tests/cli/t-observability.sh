#!/usr/bin/env bash
# isolation.observability against a real HTTP server standing in for the
# site's Prometheus (a Python http.server handler answering the documented
# /api/v1/query JSON, so it says so in its name: fake-prometheus): with
# PROMETHEUS_URL set, the audit sends one GET of /api/v1/query?query=up
# without the URL's userinfo and grades an anonymous answer listing other
# nodes WARN; a server that wants credentials (401) is not a finding; the
# userinfo is never shown; without PROMETHEUS_URL nothing is asked.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
if ! command -v python3 >/dev/null; then
	skip "python3 is needed for the fake Prometheus and the JSON checks"
	done_testing; exit
fi
PY=$(python3 -c 'import sys; print(sys.executable)')
mkdir -p "$TMP/bin" "$TMP/home"
cat >"$TMP/fake-prometheus.py" <<'PYEOF'
import http.server, json, sys
log = open(sys.argv[2], "a")
UP = {"status": "success", "data": {"resultType": "vector", "result": [
    {"metric": {"__name__": "up", "instance": "gpu-%03d:9400" % i, "job": "dcgm"},
     "value": [1764676800.0, "1"]} for i in range(1, 5)]}}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        log.write("%s auth=%s\n" % (self.path, "Authorization" in self.headers)); log.flush()
        if self.path.startswith("/locked/"):
            self.send_response(401); self.send_header("WWW-Authenticate", 'Basic realm="prom"'); self.end_headers()
            return
        body = json.dumps(UP).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PYEOF
"$PY" "$TMP/fake-prometheus.py" "$TMP/port" "$TMP/requests" &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port")

# audit NAME [PROMETHEUS_URL]: the isolation profile on a fixture tree (HOST, default cpu-only:
# no socket table), no tools on PATH
audit() {
	env -i HOME="$TMP/home" PATH="$TMP/bin" TZ=UTC CMAX_DATADIR="$CMAX_DATADIR" ${2:+PROMETHEUS_URL=$2} \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" audit isolation --local --yes --json --sysroot "$SRCDIR/tests/fixtures/hosts/${HOST:-cpu-only}/root" \
		>"$TMP/$1.json" 2>"$TMP/$1.err"
}
field() { # FILE FIELD: of the isolation.observability row
	"$PY" -c 'import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["id"] == "isolation.observability"]
print(r[0][sys.argv[2]] if r else "(no row)")' "$@"
}

audit open "http://tenant:S3cretPW@127.0.0.1:$PORT/prom/"
check "open Prometheus: WARN (got $(field "$TMP/open.json" status))" test "$(field "$TMP/open.json" status)" = WARN
check "open Prometheus: the summary names the anonymous answer" grep -q "answers queries without credentials (4 series" "$TMP/open.json"
check "one GET of /prom/api/v1/query?query=up" grep -qx "/prom/api/v1/query?query=up auth=False" "$TMP/requests"
check "the userinfo is not sent (no Authorization header)" bash -c "! grep -q 'auth=True' '$TMP/requests'"
check "the userinfo is not shown" bash -c "! grep -q S3cretPW '$TMP/open.json' '$TMP/open.err'"
check "the URL is shown redacted" grep -qF "http://***@127.0.0.1:$PORT/prom/" "$TMP/open.json"

# h100-healthy's socket table: exporters on the management address only
HOST=h100-healthy audit locked "http://127.0.0.1:$PORT/locked"
check "Prometheus asking for credentials, exporters on one address: PASS (got $(field "$TMP/locked.json" status))" \
	test "$(field "$TMP/locked.json" status)" = PASS
check "the PASS says the site's Prometheus asks for credentials" grep -q "asks for credentials" "$TMP/locked.json"
audit locked-nosockets "http://127.0.0.1:$PORT/locked"
check "Prometheus asking for credentials, socket table unread: SKIP (got $(field "$TMP/locked-nosockets.json" status))" \
	test "$(field "$TMP/locked-nosockets.json" status)" = SKIP

: >"$TMP/requests"
audit unset
check "without PROMETHEUS_URL and no socket table: SKIP (got $(field "$TMP/unset.json" status))" \
	test "$(field "$TMP/unset.json" status)" = SKIP
check "without PROMETHEUS_URL nothing is asked" test ! -s "$TMP/requests"

FREE=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
audit down "http://127.0.0.1:$FREE"
check "unreachable Prometheus: SKIP, not a finding (got $(field "$TMP/down.json" status))" \
	test "$(field "$TMP/down.json" status)" = SKIP
done_testing
