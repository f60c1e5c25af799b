#!/usr/bin/env python3
"""Regenerate docs/checks.md from the check table, as the binary reports it
(`cmax audit --dry-run -o json` for --local, --slurm and --k8s). tests/cli/t-docs.sh fails when the
committed page is out of date. Usage: tools/gen-checks-doc.py build/cmax > docs/checks.md

With --readme README.md it prints README.md instead, every count in it
refreshed from its source of truth: a count is written as
<!--n:KEY-->VALUE<!--/n--> (or <!--n:KEY:word--> / <!--n:KEY:Word--> for
"twelve" / "Twelve"), and KEY is one of COUNTS below. t-docs.sh fails when
the committed README differs:
  tools/gen-checks-doc.py build/cmax --readme README.md > README.new && mv README.new README.md"""
import json, os, re, subprocess, sys

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

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOSTS = os.path.join(SRC, "tests", "fixtures", "hosts")


def fixture_hosts(pred=lambda h: True):
    return [h for h in sorted(os.listdir(HOSTS)) if os.path.isdir(os.path.join(HOSTS, h)) and pred(h)]


def amd_host(h):
    # an AMD host is one whose recorded tools include AMD's own
    return any(os.path.isdir(os.path.join(HOSTS, h, "cmd", t)) for t in ("amd-smi", "rocm-smi"))


# What each README count is, computed from the check table and the fixture corpus.
COUNTS = {
    "checks": lambda: len(checks),                                   # every check id in the table
    "host-checks": lambda: len(plan("--local")),                    # a single-host audit
    "cluster-checks": lambda: len(checks) - len(plan("--local")),   # run once per fleet (--slurm, --k8s)
    "profiles": lambda: len({c["profile"] for c in checks}),
    "fixture-hosts": lambda: len(fixture_hosts()),
    "misconfig-hosts": lambda: len(fixture_hosts(lambda h: h.startswith("misconfig-"))),
    "amd-hosts": lambda: len(fixture_hosts(amd_host)),
}
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]


def render(key, style):
    if key not in COUNTS:
        sys.exit(f"gen-checks-doc: README count '{key}' is not one of {sorted(COUNTS)}")
    n = COUNTS[key]()
    if style in ("word", "Word") and n < len(WORDS):
        w = WORDS[n]
        return w.capitalize() if style == "Word" else w
    return str(n)


if len(sys.argv) == 4 and sys.argv[2] == "--readme":
    text = open(sys.argv[3]).read()
    marker = re.compile(r"<!--n:([a-z-]+)(?::(word|Word))?-->(.*?)<!--/n-->")
    if not marker.search(text):
        sys.exit(f"gen-checks-doc: no <!--n:KEY--> count in {sys.argv[3]}")
    text = marker.sub(lambda m: f"<!--n:{m.group(1)}{':' + m.group(2) if m.group(2) else ''}-->"
                      f"{render(m.group(1), m.group(2))}<!--/n-->", text)
    print(text, end="")
    sys.exit(0)

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
