#!/usr/bin/env python3
"""Regenerate docs/checks.md from the check table, as the binary reports it
(`cmax audit --dry-run -o json` for --local, --slurm and --k8s). tests/cli/t-docs.sh fails when the
committed page is out of date. Usage: tools/gen-checks-doc.py build/cmax > docs/checks.md"""
import json, subprocess, sys

# The single-host plan, then the cluster-scope checks of the Slurm and
# Kubernetes plans, each id once, in table order within each profile.
def plan(*args):
    return json.loads(subprocess.run([sys.argv[1], "audit", *args, "--dry-run", "-o", "json"],
                                     capture_output=True, check=True, text=True).stdout)["checks"]
seen, checks = set(), []
for c in plan("--local") + plan("--slurm", "--nodes", "node1") + plan("--k8s"):
    if c["id"] not in seen:
        seen.add(c["id"])
        checks.append(c)
order = ["versions", "isolation", "hardware", "software", "containers", "orchestration",
         "networking", "storage", "health", "access"]
checks.sort(key=lambda c: order.index(c["profile"]))
plan = {"checks": checks}
out = ["# Checks", "",
       "Generated from the check table (`src/checks/checks.def`) by `tools/gen-checks-doc.py`;",
       "do not edit by hand. Ids are stable: reports, `review` and later phases key on them.", ""]
profile = None
for c in plan["checks"]:
    if c["profile"] != profile:
        profile = c["profile"]
        out += [f"## {profile}", ""]
    out.append(f"### `{c['id']}`")
    out.append("")
    out.append(c["title"] + ".")
    out.append("")
    out.append(f"- Reads: {c['requires'] or 'nothing'}")
    if c.get("reproduce"):
        out.append(f"- Reproduce: `{c['reproduce']}`")
    if c.get("remediation"):
        out.append(f"- Remediation: {c['remediation']}")
    if c.get("changes_state"):
        out.append("- Changes state: runs only with `--active`")
    out.append("")
print("\n".join(out).rstrip() + "\n", end="")
