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
# What each --active probe changes, its budget and clean-up (src/checks/probes.def), from the plan.
probes = {p["id"]: p for p in json.loads(subprocess.run([sys.argv[1], "audit", "--local", "--dry-run", "-o", "json"],
                                                        capture_output=True, check=True,
                                                        text=True).stdout)["state_changing_probes"]}
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
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
WORDS += [t + ("-" + WORDS[u] if u else "") for t in ("twenty", "thirty", "forty") for u in range(10)]


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
        pr = probes.get(c["id"])
        if pr:
            out.append(f"- Probe: {pr['changes']}; budget {pr['budget_s']} s (killed and ERROR past it; "
                       f"data/thresholds.json `probes.budget_s`); clean-up: {pr['cleanup'] or 'nothing to undo'}")
    out.append("")

# The privileged reads (core/privilege.h priv_reads[]), as the plan lists them.
priv = json.loads(subprocess.run([sys.argv[1], "audit", "--local", "--dry-run", "-o", "json"],
                                 capture_output=True, check=True, text=True).stdout)["privileged_reads"]
out += ["## Privileged reads", "",
        "Where root reads more than a tenant, the audit reads it too, with one fixed table of read-only "
        "commands and nothing else (a command outside it is refused before it runs). As root they run "
        "directly; otherwise through `sudo -n`, which never prompts, under the same runner limits "
        "(timeout, output caps, the audit's budget). The policy is decided once per audit: by default "
        "(auto) sudo is used when `sudo -n true` succeeds; `--sudo` insists, and a refusal becomes the "
        "SKIP reason of the rows that needed the read (\"--sudo given, but sudo refused (sudo -n needs a "
        "password)\"); `--no-sudo` never runs sudo, not even `sudo -n true` (a refused sudo can mail "
        "the administrators), so `access.sudo` SKIPs and the reads SKIP with \"--no-sudo\". A read whose "
        "tool is not installed (/usr/sbin, /usr/bin, /sbin, /bin) is not attempted. `--dry-run` lists the "
        "table and whether this run would use sudo; `node-collect` takes the same flags, forwarded by "
        "`--slurm` and `--k8s`.", "",
        "`hardware.pcie-acs` is graded from `lspci -xxxx -s BDF` when sysfs gives the tenant only the first "
        "64 bytes of a GPU/NIC bridge's configuration space. `isolation.bmc-ipmi` stays about what the "
        "account reaches by itself (FAIL when it opens /dev/ipmi0 or `ipmitool mc info` answers without "
        "sudo); when only `sudo -n ipmitool mc info` answers, it WARNs: a tenant with passwordless sudo is "
        "root and reaches the BMC anyway, which the BMC's in-band policy must close. dmidecode's serial "
        "numbers and UUIDs are not kept. No `nvidia-smi -q` field documented as root-only was found: "
        "the GPU checks read nothing through sudo.", "",
        "| Command | Collector | Reads |", "|---|---|---|"]
for e in priv["commands"]:
    out.append(f"| `{e['command']}` | {e['collector']} | {e['reads']} |")
out.append("")

out += ["## Baselines", "",
        "`cmax audit --baseline RUN` compares this run's facts with an earlier run of the same host (RUN: "
        "its run directory or its audit.values.json), in the spirit of NHC's generated configuration: the "
        "node's state is pinned and any change is a finding. The `versions.baseline-*` rows compare, per "
        "category, the GPU driver; GPU VBIOS, HCA firmware and BIOS; kernel and OS release; the CUDA default "
        "toolkit and NCCL; GPU persistence and ECC, the CPU governor, perf_event_paranoid, kptr_restrict, "
        "max_user_namespaces and the IOMMU kernel parameters. Each WARNs with before -> after for what "
        "changed, PASSes when nothing did, and SKIPs without `--baseline`; a value not read in one of the "
        "two runs is not compared (unknown is never a change). Bad input is an error before anything is "
        "gathered, one line on stderr: a missing RUN exits 66; one that is not JSON, not a cmax values "
        "document, or another host's run exits 65 (a baseline of another host compares nothing, so it is "
        "refused rather than graded). A fleet audit (`--slurm`, `--k8s`) takes a fleet run's RUN and "
        "compares node by node, by the launcher's node names, in one row, `versions.baseline-fleet`: each "
        "change with the nodes it covers as a hostlist (\"NVIDIA driver 550.54.15 -> 570.211.01 on "
        "node3\"), and the nodes new to the fleet, gone from it or silent; one host's RUN for a fleet "
        "audit, or a fleet's for one host, exits 65.", ""]

# The public audit's criteria, each with the checks that grade it or the
# reason none does (docs/upstream-criteria.json; t-criteria.sh checks it).
crit = json.load(open(os.path.join(SRC, "docs", "upstream-criteria.json")))
ids = {c["id"] for c in checks}
src = crit["source"]
out += ["## The public audit's criteria", "",
        f"Every criterion of the public ClusterMAX audit ({src['path']} at {src['commit'][:7]}, "
        f"{src['count']} criteria) and the cmax checks that grade it; a criterion no check grades says why.", "",
        "| Criterion | Upstream label | Harnesses | cmax checks |", "|---|---|---|---|"]
for e in crit["criteria"]:
    unknown = [k for k in e.get("checks", []) if k not in ids]
    if unknown:
        sys.exit(f"gen-checks-doc: criterion {e['id']} names checks not in the table: {', '.join(unknown)}")
    graded = ", ".join(f"`{k}`" for k in e.get("checks", [])) or "not graded: " + e["not_graded"]
    label = e["label"].replace("|", "\\|")
    out.append(f"| `{e['id']}` | {label} | {', '.join(e['harnesses'])} | {graded} |")
out.append("")
print("\n".join(out).rstrip() + "\n", end="")
