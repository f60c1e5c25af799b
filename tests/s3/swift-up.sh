#!/usr/bin/env bash
# A real S3 endpoint on loopback: OpenStack Swift (Debian bookworm packages)
# with its s3api middleware, which VERIFIES SigV4 signatures. Everything lives
# under $BASE; every server binds 127.0.0.1; ports are free ones picked now.
#
#   apt-get install -y --no-install-recommends swift-proxy swift-object swift-container swift-account
#   BASE=$(mktemp -d) BUCKET=bench tests/s3/swift-up.sh   # prints S3_PORT=N on its last line
#   BASE=... tests/s3/swift-down.sh                       # stop by pid (process group), rm -rf $BASE
#
# Endpoint http://127.0.0.1:$S3_PORT (also in $BASE/s3_port), region us-east-1,
# access key "test:tester" (the colon is part of it), secret "testing".
# BUCKET, when set, is created (a signed PUT through curl --aws-sigv4).
# Recipe: shared/docs/reference/real-components-on-ci.md section 3a.
set -euo pipefail
: "${BASE:?set BASE to an empty directory (mktemp -d)}"
PY=/usr/bin/python3          # Debian's python3: a pyenv one earlier on PATH lacks swift
for b in swift-ring-builder swift-proxy-server swift-object-server; do
	command -v "$b" >/dev/null || { echo "swift-up: $b not installed (apt-get install swift-proxy swift-object swift-container swift-account)" >&2; exit 3; }
done
# Five free loopback ports, chosen by the kernel (the small window until the
# servers bind them is acceptable on a CI machine).
read -r S3_PORT OBJ_PORT CONT_PORT ACCT_PORT MC_PORT < <($PY - <<'PYEOF'
import socket
ss = []
for _ in range(5):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ss))
PYEOF
)
mkdir -p "$BASE"/{etc,srv/d1,log,run}
E=$BASE/etc
cat >"$E/swift.conf" <<CONF
[swift-hash]
swift_hash_path_suffix = cmax-suffix
swift_hash_path_prefix = cmax-prefix
[storage-policy:0]
name = Policy-0
default = yes
CONF
# Rings: 2^6 partitions, 1 replica, one device each, built in one Python
# process (three swift-ring-builder calls per ring cost ~2 s each in
# interpreter start-up alone on a loaded 2-core machine).
$PY - "$E" "$OBJ_PORT" "$CONT_PORT" "$ACCT_PORT" <<'PYEOF'
import sys
from swift.common.ring import RingBuilder
etc = sys.argv[1]
for name, port in zip(("object", "container", "account"), sys.argv[2:5]):
    b = RingBuilder(6, 1, 1)
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port),
               "device": "d1", "weight": 1, "meta": ""})
    b.rebalance()
    b.get_ring().save("%s/%s.ring.gz" % (etc, name))
PYEOF
[ -f "$E/object.ring.gz" ] || { echo "swift-up: ring build failed" >&2; exit 1; }
server_conf() { # port app
	printf '[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = %s\nworkers = 0\nswift_dir = %s\ndevices = %s\nmount_check = false\nlog_level = WARNING\n' \
		"$1" "$E" "$BASE/srv"
	printf '[pipeline:main]\npipeline = %s-server\n[app:%s-server]\nuse = egg:swift#%s\n' "$2" "$2" "$2"
}
server_conf "$OBJ_PORT" object >"$E/object-server.conf"
server_conf "$CONT_PORT" container >"$E/container-server.conf"
server_conf "$ACCT_PORT" account >"$E/account-server.conf"
# tempauth insists on the memcache middleware ("Memcache required") but not
# on a memcached: the client points at a free port nobody listens on, logs
# one ECONNREFUSED and error-limits it (no port 11211 shared between tests).
cat >"$E/proxy-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $S3_PORT
workers = 0
swift_dir = $E
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MC_PORT

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
CONF
# The servers run in the foreground: background each in its own session
# (stop by process group), output to files, never the caller's pipe (a CI
# runner waiting for EOF would hang).
for s in object container account proxy; do
	setsid $PY "$(command -v swift-$s-server)" "$E/$s-server.conf" -v \
		>"$BASE/log/$s.log" 2>&1 </dev/null &
	echo $! >"$BASE/run/$s.pid"
done
echo "$S3_PORT" >"$BASE/s3_port"
for _ in $(seq 300); do
	curl -sf "http://127.0.0.1:$S3_PORT/healthcheck" >/dev/null 2>&1 && break
	sleep 0.1
done
if ! curl -sf "http://127.0.0.1:$S3_PORT/healthcheck" >/dev/null; then
	echo "swift-up: proxy not answering on 127.0.0.1:$S3_PORT" >&2
	tail -n 20 "$BASE"/log/*.log >&2
	exit 1
fi
if [ -n "${BUCKET:-}" ]; then
	# "test:tester" holds a colon: --user would split it there; a netrc does not.
	printf 'machine 127.0.0.1 login test:tester password testing\n' >"$BASE/netrc"
	chmod 600 "$BASE/netrc"
	empty=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
	# The account and container servers may need a moment after the proxy.
	for _ in $(seq 50); do
		curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --netrc-file "$BASE/netrc" \
			-H "x-amz-content-sha256: $empty" -X PUT "http://127.0.0.1:$S3_PORT/$BUCKET" >/dev/null 2>&1 && break
		sleep 0.1
	done
	curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --netrc-file "$BASE/netrc" \
		-H "x-amz-content-sha256: $empty" "http://127.0.0.1:$S3_PORT/$BUCKET?list-type=2" >/dev/null ||
		{ echo "swift-up: bucket $BUCKET not usable" >&2; exit 1; }
fi
echo "S3_PORT=$S3_PORT"
