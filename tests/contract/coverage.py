#!/usr/bin/env python3
"""Every check in the fixture corpus must have at least one PASS case and at
least one FAIL or WARN case; prints the ones that lack either."""
import json, sys

seen = {}
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    for r in doc["results"]:
        seen.setdefault(r["id"], set()).add(r["status"])
missing = []
for cid, st in sorted(seen.items()):
    if "PASS" not in st:
        missing.append(f"{cid}: no PASS case (seen {sorted(st)})")
    if not ({"FAIL", "WARN"} & st):
        missing.append(f"{cid}: no FAIL or WARN case (seen {sorted(st)})")
print(f"{len(seen)} checks in the corpus")
for m in missing:
    print(m)
sys.exit(1 if missing else 0)
