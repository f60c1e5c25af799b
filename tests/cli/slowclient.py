#!/usr/bin/env python3
"""Hostile HTTP clients for tests/cli/t-health-httpd.sh (issue 11, defect 2).

Opens connections to HOST:PORT from chosen loopback source addresses and
holds them, then prints one JSON document: for each connection its source,
kind, whether it connected, and after how many seconds the server closed
it (null when it was still open when --hold ran out).

  --conn SRC:KIND:COUNT   COUNT connections from source address SRC
                          (127.0.0.x: Linux routes all of 127/8 to lo);
                          KIND is
                            trickle  a request sent one byte every
                                     --interval seconds, never finished
                                     (the slow client of the issue)
                            idle     connected, sends nothing
  --ready FILE            written once every connection is made
  --hold SECONDS          give up waiting for the server after this long

The trickling client is never silent for more than --interval, so an
inactivity timeout alone never ends it; only a whole-request deadline does.
"""
import argparse
import json
import select
import socket
import sys
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: cmax-test\r\nX-Slow: " + b"a" * 4096


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--conn", action="append", default=[])
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--hold", type=float, default=8.0)
    ap.add_argument("--ready")
    a = ap.parse_args()

    conns = []
    for spec in a.conn:
        src, kind, count = spec.split(":")
        assert kind in ("trickle", "idle"), kind
        for _ in range(int(count)):
            c = {"src": src, "kind": kind, "connected": False, "closed_after": None,
                 "sent": 0}
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(2.0)
            try:
                s.bind((src, 0))
                s.connect((a.host, a.port))
                c["connected"] = True
            except OSError as e:
                c["error"] = str(e)
                s.close()
                s = None
            c["sock"] = s
            c["t0"] = time.monotonic()
            conns.append(c)
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("ready\n")

    def closed(c, now):
        c["closed_after"] = round(now - c["t0"], 3)
        c["sock"].close()
        c["sock"] = None

    end = time.monotonic() + a.hold
    next_byte = time.monotonic()
    while True:
        now = time.monotonic()
        live = [c for c in conns if c["sock"] is not None]
        if not live or now >= end:
            break
        if now >= next_byte:
            for c in live:
                if c["kind"] != "trickle" or c["sent"] >= len(REQUEST):
                    continue
                try:
                    c["sock"].send(REQUEST[c["sent"]:c["sent"] + 1])
                    c["sent"] += 1
                except OSError:
                    closed(c, now)
            next_byte = now + a.interval
        live = [c for c in conns if c["sock"] is not None]
        if not live:
            break
        r, _, _ = select.select([c["sock"] for c in live], [], [],
                                max(0.0, min(next_byte, end) - time.monotonic()))
        now = time.monotonic()
        for c in live:
            if c["sock"] in r:
                try:
                    data = c["sock"].recv(65536)
                except OSError:
                    data = b""
                if not data:
                    closed(c, now)
    for c in conns:
        if c["sock"] is not None:
            c["sock"].close()
        del c["sock"], c["t0"]
    json.dump(conns, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
