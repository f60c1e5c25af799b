#!/usr/bin/env bash
# Stop what swift-up.sh started, by pid file (each server leads its own
# process group), then remove $BASE (KEEP=1 keeps it for a look at the logs).
: "${BASE:?}"
for f in "$BASE"/run/*.pid; do
	[ -f "$f" ] || continue
	pid=$(cat "$f")
	case $pid in '' | *[!0-9]*) rm -f "$f"; continue ;; esac
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
	rm -f "$f"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$BASE"
