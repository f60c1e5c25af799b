#!/usr/bin/env python3
"""Validate a cmax audit results document against the published JSON Schema
(docs/schema/audit-results.schema.json) plus the rules a schema cannot say:
counts add up, (id, host) pairs are unique and SKIP/ERROR rows carry a reason."""
import json, os, sys
import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
schema_path = os.path.join(here, "..", "..", "docs", "schema", "audit-results.schema.json")
with open(schema_path) as f:
    schema = json.load(f)

def check(path):
    with open(path) as f:
        doc = json.load(f)
    errors = []
    v = jsonschema.Draft202012Validator(schema)
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
        errors.append(f"{'/'.join(map(str, e.path))}: {e.message}")
    if not errors:
        counts = {k: 0 for k in ("PASS", "WARN", "FAIL", "SKIP", "ERROR")}
        rows = set()
        for r in doc["results"]:
            counts[r["status"]] += 1
            # one row per check and host: a fleet report repeats ids per node
            if (r["id"], r["host"]) in rows:
                errors.append(f"duplicate row {r['id']} on host {r['host']}")
            rows.add((r["id"], r["host"]))
            if r["status"] in ("SKIP", "ERROR") and len(r["summary"].strip()) < 5:
                errors.append(f"{r['id']}: {r['status']} without a reason")
        for k, n in counts.items():
            if doc["counts"][k] != n:
                errors.append(f"counts.{k} is {doc['counts'][k]} but {n} rows have it")
    return errors

rc = 0
for p in sys.argv[1:]:
    errs = check(p)
    for e in errs:
        print(f"{p}: {e}")
    rc |= bool(errs)
sys.exit(rc)
