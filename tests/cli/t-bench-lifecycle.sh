#!/usr/bin/env bash
# cmax bench lifecycle without the network (loopback only): import time of a
# fake `torch` (a package that sleeps 0.2 s) from a temp tier, SKIPs for a
# tier without torch and for no python3 on PATH, --download against a local
# python3 http.server, --vllm-cmd against a fake server that answers
# /v1/models after 1 s (its process group must be gone afterwards), --pull
# without a container runtime. --pip-package needs PyPI: not exercised here.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
VALIDATE="python3 $SRCDIR/tests/contract/validate-bench.py"
if ! command -v python3 >/dev/null || ! command -v curl >/dev/null; then
	skip "python3 and curl are needed for this test"
	done_testing; exit
fi
# the interpreter itself first on PATH: a pyenv shim costs half a second a start
PY=$(python3 -c 'import sys; print(sys.executable)'); PATH=$(dirname "$PY"):$PATH
W=$TMP/work; mkdir -p "$W"
left() { find "$W" -mindepth 1 | head -3; }
T=$TMP/tier; mkdir -p "$T/torch" "$TMP/notorch"
printf 'import time\ntime.sleep(0.2)\n__version__ = "0.0-fake"\n' >"$T/torch/__init__.py"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pids=()
trap 'for p in "${pids[@]}"; do kill -- -"$p" "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

"$CMAX" bench lifecycle --path "$W" --tier "$T" --download http://u:secret@127.0.0.1:9/f?sig=XYZ \
	--vllm-cmd "vllm serve m" --pull img --dry-run >"$TMP/plan" 2>&1
check "dry-run exits 0" [ $? -eq 0 ]
check "dry-run names the network steps and the server" \
	bash -c "grep -q 'Uses the network (opt-in)' '$TMP/plan' && grep -q 'Starts a server (opt-in)' '$TMP/plan' && grep -q 'curl .*127.0.0.1:9/f' '$TMP/plan'"
check "dry-run does not show the URL's secrets" bash -c "! grep -Eq 'secret|XYZ' '$TMP/plan'"
check "dry-run wrote nothing" [ -z "$(left)" ]
"$CMAX" bench lifecycle --path "$W" --tier "$T" --dry-run --json >"$TMP/plan.json"
check "dry-run --json: plan with no network and no server" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); assert p["schema"]=="cmax.bench.plan/1" and p["benchmark"]=="lifecycle"
assert p["network"]==[] and p["servers"]==[] and len(p["commands"])==1, p' "$TMP/plan.json"
"$CMAX" bench lifecycle --path "$W" >/dev/null 2>"$TMP/err"
check "nothing requested: exit 64" [ $? -eq 64 ]
"$CMAX" bench lifecycle --path "$W" --tier "$T" </dev/null >/dev/null 2>"$TMP/err"
check "without --yes and no terminal: exit 64 and says why" bash -c "[ $? -eq 64 ] && grep -q -- --yes '$TMP/err'"

# import torch: fake torch, a tier without it, a missing tier, and a tier with
# its own interpreter (a venv-like bin/python3), which is used as such
mkdir -p "$TMP/venv/bin" "$TMP/venv/lib"; cp -r "$T/torch" "$TMP/venv/lib/"
printf '#!/bin/sh\nexport PYTHONPATH=%s/venv/lib\nexec python3 "$@"\n' "$TMP" >"$TMP/venv/bin/python3"
chmod +x "$TMP/venv/bin/python3"
"$CMAX" bench lifecycle --path "$W" --yes --json --tier "$T" --tier "$TMP/notorch" --tier "$TMP/nope" --tier "$TMP/venv" \
	>"$TMP/i.json" 2>"$TMP/i.err"
check "import run exits 0" [ $? -eq 0 ]
diag <"$TMP/i.err"
check "fake torch: cold and warm ~0.2 s, graded PASS; other tiers SKIP with the reason; a venv tier uses its python" python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert len(r)==4, r
a,b,c,v=r; o=a["observed"]
assert a["id"]=="bench.lifecycle-import-torch-1" and a["status"]=="PASS", a["summary"]
assert 0.18<=o["cold_s"]<=1.0 and 0.18<=o["warm_s"]<=1.0, o
assert o["from_tier"] is True and o["version"]=="0.0-fake" and o["mode"]=="path", o
assert a["expected"]["warn_above"]==3 and a["reproduce"]
assert b["status"]=="SKIP" and "torch is not installed" in b["summary"], b["summary"]
assert c["status"]=="SKIP" and "not a directory" in c["summary"], c["summary"]
o=v["observed"]; assert o["mode"]=="venv" and o["python"].endswith("venv/bin/python3") and v["status"]=="PASS", (o, v["summary"])' "$TMP/i.json"
check "work directory removed" [ -z "$(left)" ]


# no python3 on PATH, no container runtime: SKIPs, nothing started
mkdir -p "$TMP/emptybin"
PATH=$TMP/emptybin "$CMAX" bench lifecycle --path "$W" --yes --json --tier "$T" --pull busybox:latest >"$TMP/np.json" 2>/dev/null
check "no python3 / no runtime: exit 0" [ $? -eq 0 ]
check "no python3 -> import SKIP; no docker/podman/enroot -> pull SKIP" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
i=r["bench.lifecycle-import-torch-1"]; p=r["bench.lifecycle-pull"]
assert i["status"]=="SKIP" and "python3 is not on PATH" in i["summary"], i["summary"]
assert p["status"]=="SKIP" and "no container runtime" in p["summary"] and p["profile"]=="containers", p["summary"]' "$TMP/np.json"

# --download against a local HTTP server (32 MiB file)
D=$TMP/www; mkdir -p "$D"; head -c 33554432 /dev/zero >"$D/blob"
P=$(freeport)
setsid python3 -m http.server "$P" --bind 127.0.0.1 --directory "$D" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$P/" && break; sleep 0.1; done
"$CMAX" bench lifecycle --path "$W" --yes --json --download "http://127.0.0.1:$P/blob?token=SECRET" >"$TMP/d.json" 2>"$TMP/d.err"
check "download exits 0" [ $? -eq 0 ]
check "download: 32 MiB measured, throughput recorded and graded, token redacted" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); x=d["results"][0]; o=x["observed"]
assert x["id"]=="bench.lifecycle-download" and x["status"] in ("PASS","WARN","FAIL"), x["summary"]
assert o["bytes"]==33554432 and o["gb_s"]>0 and o["http_code"]==200, o
assert "SECRET" not in json.dumps(d), "token leaked"' "$TMP/d.json"
"$CMAX" bench lifecycle --path "$W" --yes --json --download "http://127.0.0.1:$P/missing" >"$TMP/d404.json" 2>/dev/null
check "download of a missing file: ERROR with the HTTP code, not graded" python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]
assert x["status"]=="ERROR" and "404" in x["summary"], x["summary"]' "$TMP/d404.json"
"$CMAX" bench lifecycle --path "$W" --yes --json --download-mib 1 --download "http://127.0.0.1:$P/blob" >"$TMP/dr.json" 2>/dev/null
check "a 1 MiB limit is requested as a Range (python's server ignores it: whole file, noted)" python3 -c '
import json,sys; o=json.load(open(sys.argv[1]))["results"][0]["observed"]; assert o["limit_bytes"]==1048576 and o["bytes"]>0, o' "$TMP/dr.json"

# --vllm-cmd: a fake server that binds after 1 s, with a child in its group
cat >"$TMP/fakevllm.py" <<'PY'
import http.server, json, subprocess, sys, time
port, marker = int(sys.argv[1]), sys.argv[2]
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", marker])
time.sleep(1)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "fake/model", "object": "model"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
VP=$(freeport); MARK="cmax-fake-vllm-child-$$"
"$CMAX" bench lifecycle --path "$W" --yes --json --vllm-cmd "$PY $TMP/fakevllm.py $VP $MARK" --vllm-port "$VP" \
	--vllm-timeout 15 >"$TMP/vl.json" 2>"$TMP/vl.err"
check "vllm run exits 0" [ $? -eq 0 ]
diag <"$TMP/vl.err"
check "vllm: ready after ~1 s, model listed, graded PASS, group gone" python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"]=="PASS" and 0.9<=o["ready_s"]<=4.0, (x["summary"], o)
assert o["models"]==["fake/model"] and o["group_gone"] is True and o["process_group"]>0, o' "$TMP/vl.json"
check "vllm: no process of the fake server left (parent or child)" bash -c "! pgrep -f '[c]max-fake-vllm-child-$$' >/dev/null"
check "vllm: port free again" bash -c "! curl -s -o /dev/null --max-time 1 http://127.0.0.1:$VP/v1/models"
cat >"$TMP/dies.py" <<'PY'
import sys; print("loading model failed", file=sys.stderr); sys.exit(3)
PY
"$CMAX" bench lifecycle --path "$W" --yes --json --vllm-cmd "$PY $TMP/dies.py" --vllm-port "$VP" --vllm-timeout 10 >"$TMP/vd.json" 2>/dev/null
check "a server that exits early: ERROR, its stderr in the evidence" python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]
assert x["status"]=="ERROR" and "exited before" in x["summary"], x["summary"]
assert "loading model failed" in json.dumps(x["evidence"]), x["evidence"]' "$TMP/vd.json"
"$CMAX" bench lifecycle --path "$W" --yes --json --vllm-cmd "$PY $TMP/fakevllm.py $VP $MARK" --vllm-port "$P" >"$TMP/busy.json" 2>/dev/null
check "a port that already answers: ERROR, no server started" python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]
assert x["status"]=="ERROR" and "already answers" in x["summary"], x["summary"]' "$TMP/busy.json"
printf 'import subprocess, sys, time\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1]])\ntime.sleep(300)\n' >"$TMP/mute.py"
"$CMAX" bench lifecycle --path "$W" --yes --json --vllm-cmd "$PY $TMP/mute.py $MARK-mute" --vllm-port "$VP" --vllm-timeout 2 >"$TMP/vt.json" 2>/dev/null
check "a server that never answers: FAIL at --vllm-timeout, group killed" python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"]=="FAIL" and "within 2 s" in x["summary"] and o["group_gone"] is True and o["polls"]>=2, (x["summary"], o)' "$TMP/vt.json"
check "... and its child is gone too" bash -c "! pgrep -f '[c]max-fake-vllm-child-$$-mute' >/dev/null"
check "nothing left in the work directory" [ -z "$(left)" ]
# one validator start for all documents: jsonschema takes most of a second to load
check "every document validates against the bench schema" $VALIDATE "$TMP"/{i,np,d,d404,dr,vl,vd,busy,vt}.json
skip "--pip-package needs PyPI (no network here): not exercised"
done_testing
