#!/usr/bin/env python3
"""Validate a cmax bench results document against
docs/schema/bench-results.schema.json plus what a schema cannot say:
counts add up, (id, host) pairs are unique, SKIP/ERROR rows carry a reason."""
import json, os, sys
import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "docs", "schema", "bench-results.schema.json")) as f:
    schema = json.load(f)

def check(path):
    with open(path) as f:
        doc = json.load(f)
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}"
              for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    if errors:
        return errors
    counts = {k: 0 for k in ("PASS", "WARN", "FAIL", "SKIP", "ERROR")}
    seen = set()
    for r in doc["results"]:
        counts[r["status"]] += 1
        key = (r["id"], r["host"])
        if key in seen:
            errors.append(f"duplicate row {r['id']}")
        seen.add(key)
        if r["status"] in ("SKIP", "ERROR") and len(r["summary"].strip()) < 5:
            errors.append(f"{r['id']}: {r['status']} without a reason")
    for k, n in counts.items():
        if doc["counts"][k] != n:
            errors.append(f"counts.{k} is {doc['counts'][k]} but {n} rows have it")
    if doc["counts"].get("total", len(doc["results"])) != len(doc["results"]):
        errors.append("counts.total does not match")
    return errors

rc = 0
for p in sys.argv[1:]:
    for e in check(p):
        print(f"{p}: {e}")
        rc = 1
sys.exit(rc)
