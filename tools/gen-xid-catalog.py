#!/usr/bin/env python3
"""Generate data/xid-catalog.json from the research reference markdown.

Usage: tools/gen-xid-catalog.py REFERENCE.md [OUT.json] [--generated YYYY-MM-DD]

The reference (docs/reference/xid-health-and-tool-formats.md, section 1)
restates NVIDIA's Xid Catalog as a markdown table.  We keep the catalog as
data so a new catalog revision is a regenerated file, not a code change.
The parts of the JSON that are judgement rather than transcription (which
cmax action each NVIDIA bucket maps to, actions for the rows the catalog
leaves blank, the notable SXids) live in the tables below, each with its
reason, so a reviewer can argue with one line instead of the C code.

Output is deterministic: same input and --generated date, same bytes.
"""

import datetime
import json
import re
import sys

SCHEMA = "cmax.xid-catalog/1"

ACTIONS = ("none", "restart_app", "reset_gpu", "drain_and_reset", "reboot",
           "contact_support")

# NVIDIA immediate bucket -> cmax default action.  Workflow buckets get the
# action of their "solo"/default branch; src/xid/classify.c applies the
# context rules (48 with 63/64, 45 not solo, 94/95 RST flags, 154 target,
# NVLink fatality, CHECK_UVM with UVM in use).
BUCKET_ACTIONS = {
    "RESTART_APP": "restart_app",
    "IGNORE": "none",
    "RESET_GPU": "reset_gpu",
    "RESTART_BM": "reboot",
    # A VM restart is the guest's reboot; cmax audits the node that owns
    # the GPU, where the nearest action is a reboot.
    "RESTART_VM": "reboot",
    "CONTACT_SUPPORT": "contact_support",
    # Seating/cabling and firmware updates need hands or a maintenance
    # window: nothing a node agent can automate, so escalate.
    "CHECK_MECHANICALS": "contact_support",
    "UPDATE_SWFW": "contact_support",
    # Solo DBE -> reset; with 63/64 -> drain_and_reset (classify.c).
    "WORKFLOW_XID_48": "reset_gpu",
    # Solo -> restart (the catalog says restart Fabric Manager, which
    # restarts the app's fabric state); not solo -> none (classify.c).
    "WORKFLOW_XID_45": "restart_app",
    # "A GPU reset or node reboot is needed to clear"; non-fatal -> none.
    "WORKFLOW_NVLINK_ERR": "reset_gpu",
    # Most fatal decode rows are RESET_GPU; Nonfatal -> none (classify.c).
    "WORKFLOW_NVLINK5_ERR": "reset_gpu",
    # Informational summary; classify.c uses the target value it names.
    "XID_154": "none",
    # No UVM/vGPU assumed -> IGNORE; with UVM in use -> reset (classify.c).
    "CHECK_UVM": "none",
    # Buckets used by the investigatory column and the 13/31 workflows;
    # listed so a policy can refer to them, never an xid's default.
    "WORKFLOW_XID_13": "restart_app",
    "WORKFLOW_XID_31": "restart_app",
}

# Rows 162-172 have no bucket in the catalog; the actions below follow the
# guidance text quoted under the table.
BLANK_ACTIONS = {
    162: ("none", "catalog: power smoothing re-engaged, no GPU reset required"),
    163: ("none", "catalog: no GPU reset required; fix thermal events or "
                  "reset/reload only if power smoothing is wanted"),
    164: ("none", "catalog: low power-smoothing lifetime is a planning "
                  "signal (monitor swings, expect replacement), not an outage"),
    165: ("none", "catalog: driver disables power smoothing and the GPU keeps "
                  "working; replacement is a facility decision"),
    166: ("contact_support", "confidential-computing NVLink event with no "
                             "automatable fix in the catalog"),
    167: ("reboot", "fatal PCIe timeout: treated like Xid 79 (GPU lost on "
                    "the bus, RESTART_BM)"),
    168: ("reboot", "catalog: WPR errors need ECC enabled or a reboot with a "
                    "shifted WPR"),
    169: ("reset_gpu", "internal micro-controller halt, as Xid 62 (RESET_GPU)"),
    170: ("contact_support", "confidential-computing interrupt with no "
                             "automatable fix in the catalog"),
    171: ("reset_gpu", "supplements Xid 48 (DRAM): follows WORKFLOW_XID_48, "
                      "solo reset_gpu, with 63/64 drain_and_reset"),
    172: ("reset_gpu", "supplements Xid 48 (SRAM): follows WORKFLOW_XID_48, "
                      "solo reset_gpu, with 63/64 drain_and_reset"),
}

GPUS = ("A100", "H100", "B100", "GB200")

LEGACY = {"HW", "DRV", "APP", "SYSMEM", "BUS", "THERM", "FB"}

# Notable SXids restated from section 1.6 (Fabric Manager guide appendix D
# and NVSentinel's mapping).  "action" is what cmax does when the line says
# Fatal; non-fatal lines are always "none".  RESET_FABRIC on an HGX board
# resets every switch and GPU, which in practice is a reboot.
SXID_BUCKET_ACTIONS = {
    "RESET_FABRIC": "reboot",
    "RESET_GPU": "reset_gpu",
    "IGNORE": "none",
    "CHECK_THERMALS": "contact_support",
    "CHECK_FM_CONFIG": "contact_support",
    "CHECK_LINK_MECHANICAL_CONNECTIONS": "contact_support",
    "RUN_FIELDDIAG": "contact_support",
    "INVESTIGATE_LINK_SI": "reset_gpu",
    "WORKFLOW_NVLINK_POTENTIALY_FATAL_ERR": "reset_gpu",
    "UNEXPECTED_ERR_REPORT_ISSUE": "contact_support",
}

# (code, name, bucket, fatal, always_fatal)
SXID_NOTABLE = [
    (10003, "Host unhandled interrupt", "RESET_FABRIC", True, False),
    (10004, "Host thermal event start", "CHECK_THERMALS", False, False),
    (10005, "Host thermal event end", "IGNORE", False, False),
    (10006, "Host thermal shutdown", "RESET_FABRIC", True, False),
    (10007, "Host IO failure", "RESET_FABRIC", True, False),
    (10008, "Host firmware initialization failure", "RESET_FABRIC", True, False),
    (11004, "Ingress ACL failure", "CHECK_FM_CONFIG", False, False),
    (12020, "Egress sequence ID error", "RESET_FABRIC", True, True),
    (12028, "Egress non-posted PRIV error", "RESET_FABRIC", False, False),
    (14017, "TSTATE ATO timeout", "RESET_FABRIC", True, False),
    (19084, "NVLTLC AN1 heartbeat timeout", "RESET_FABRIC", False, False),
    (20001, "DLPL TX replay", "IGNORE", False, False),
    (20012, "Broken/inconsistent connection", "CHECK_LINK_MECHANICAL_CONNECTIONS", False, False),
    (20034, "LTSSM Fault Up", "RESET_GPU", True, False),
    (22003, "MINION halt", "RESET_FABRIC", True, True),
    (22011, "MINION exterr", "RESET_FABRIC", True, True),
    (22012, "MINION fatal link interrupt", "WORKFLOW_NVLINK_POTENTIALY_FATAL_ERR", True, False),
]

# The reference shares one row between the multicast and reduction
# TSTATE ranges; give each its own unit name.
UNIT_NAMES = {29001: "MC_TSTATE", 30001: "RED_TSTATE"}

# Ranges of the NXBAR unit are "always fatal" as a whole (section 1.6).
ALWAYS_FATAL_UNITS = {"NXBAR"}

SOURCES = [
    "NVIDIA Xid Catalog: https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html",
    "NVIDIA Xid Errors (legacy listing, r555): https://docs.nvidia.com/deploy/xid-errors/index.html",
    "leptonai/gpud components/accelerator/nvidia/xid/catalog_generated.go",
    "NVIDIA Fabric Manager User Guide, appendix D (SXid)",
    "NVIDIA/NVSentinel nvswitch-health-monitor sxiderrorsmapping.csv",
    "cmax docs/reference/xid-health-and-tool-formats.md section 1",
]

# Where the catalog's facts come from (docs/provenance.md).  The codes,
# mnemonics, applicability and buckets are NVIDIA's; they were compared
# with NVIDIA's page on the date below (spot checks of the table rows).
# The bucket -> cmax action map, BLANK_ACTIONS and the notable SXid
# actions above are cmax's judgement, each with its reason in this file.
# Update BASIS_CHECKED when the catalog is compared with NVIDIA's page
# again, and the revision in the reference when a new one is transcribed.
BASIS_CHECKED = "2026-12-01"
BASIS_URL = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"


def basis(revision):
    return {
        "kind": "source",
        "url": BASIS_URL,
        "checked": BASIS_CHECKED,
        "figure": "NVIDIA's Xid Catalog for Ampere and newer GPUs (type, code, "
                  "mnemonic, description, applies to A100/H100/B100/GB200, "
                  "resolution bucket immediate and investigatory, Xid 154 "
                  "linkage), transcribed from the revision of %s (the date of "
                  "gpud's copy; the page itself shows no revision date); rows "
                  "compared with the page on %s, e.g. Xid 1 "
                  "ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD 'Unused', NO on all "
                  "four GPUs, CONTACT_SUPPORT; Xid 8 "
                  "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT 'GPU stopped "
                  "processing', YES on all four, RESTART_APP. The SXid ranges "
                  "(Fabric Manager User Guide appendix D) were not compared. The "
                  "cmax action of each bucket (bucket_actions, action_note) is "
                  "cmax's reading, with its reason in tools/gen-xid-catalog.py"
                  % (revision, BASIS_CHECKED),
    }


def die(msg):
    sys.stderr.write("gen-xid-catalog: %s\n" % msg)
    sys.exit(1)


def section(lines, start, stop_re=r"^#{2,4} "):
    """Lines after the heading starting with `start` up to the next heading."""
    out, inside = [], False
    for ln in lines:
        if ln.startswith(start):
            inside = True
            continue
        if inside and re.match(stop_re, ln):
            break
        if inside:
            out.append(ln)
    if not out:
        die("section %r not found" % start)
    return out


def cells(row):
    row = row.strip()
    if not row.startswith("|") or not row.endswith("|"):
        return None
    return [c.strip() for c in row[1:-1].split("|")]


def bucket(s):
    return "" if s in ("(blank)", "") else s


def parse_xids(lines):
    xids = []
    for ln in section(lines, "### 1.3 "):
        c = cells(ln)
        if not c or not c[0].isdigit():
            continue
        if len(c) != 9:
            die("xid row has %d cells: %s" % (len(c), ln))
        code = int(c[0])
        flags = c[3].split("/")
        if len(flags) != 4 or any(f not in ("Y", "N") for f in flags):
            die("xid %d: bad applicability %r" % (code, c[3]))
        legacy = c[7]
        if legacy in ("n/a", ""):
            causes = None          # postdates the r555 listing / not transcribed
        elif legacy == "-":
            causes = []
        else:
            causes = legacy.split(",")
            bad = [x for x in causes if x not in LEGACY]
            if bad:
                die("xid %d: unknown legacy cause %r" % (code, bad))
        imm = bucket(c[4])
        e = {
            "code": code,
            "mnemonic": c[1].strip("`"),
            "description": c[2],
            "applies": {g: f == "Y" for g, f in zip(GPUS, flags)},
            "immediate": imm,
            "investigatory": bucket(c[5]),
            "xid154": c[6],
            "legacy_causes": causes,
            "class": c[8],
        }
        if imm:
            if imm not in BUCKET_ACTIONS:
                die("xid %d: no cmax action for bucket %r" % (code, imm))
            e["action"] = BUCKET_ACTIONS[imm]
        else:
            if code not in BLANK_ACTIONS:
                die("xid %d: blank bucket without a chosen action" % code)
            e["action"], e["action_note"] = BLANK_ACTIONS[code]
        xids.append(e)
    codes = [x["code"] for x in xids]
    if codes != list(range(1, len(codes) + 1)) or len(codes) < 172:
        die("xid table is not 1..N with N >= 172 (got %d rows)" % len(codes))
    return xids


def parse_sxid_ranges(lines):
    out = []
    for ln in section(lines, "### 1.6 "):
        c = cells(ln)
        if not c or not c[0][:1].isdigit():
            continue
        unit_col, buckets = c[1], (c[2] if len(c) > 2 else "")
        m = re.match(r"([A-Za-z0-9_]+)\s*(.*)$", unit_col)
        if not m:
            die("sxid unit %r" % unit_col)
        unit, what = m.group(1).upper(), m.group(2).strip()
        if not m.group(1).isupper():
            what = unit_col      # a description, not a unit prefix
        elif what.startswith("(") and what.endswith(")"):
            what = what[1:-1]
        notes = "; ".join(x for x in (what, buckets.replace("**", "")) if x)
        for part in c[0].split("/"):
            r = re.match(r"\s*(\d+)\s*[\u2013-]\s*(\d+)\s*$", part)
            if not r:
                die("sxid range %r" % part)
            first = int(r.group(1))
            e = {"first": first, "last": int(r.group(2)),
                 "unit": UNIT_NAMES.get(first, unit), "notes": notes}
            if unit in ALWAYS_FATAL_UNITS:
                e["always_fatal"] = True
            out.append(e)
    if len(out) < 10:
        die("sxid range table too short")
    return out


def sxid_notable():
    out = []
    for code, name, bkt, fatal, always in SXID_NOTABLE:
        e = {"code": code, "name": name, "bucket": bkt, "fatal": fatal,
             "action": SXID_BUCKET_ACTIONS[bkt]}
        if always:
            e["always_fatal"] = True
            e["action"] = "reboot"
        out.append(e)
    return out


def catalog_date(text):
    # The reference records the revision it transcribed as the date gpud
    # generated its copy of the catalog ("generated 2025-10-29 from the
    # catalog"); both copies agree, so that is the revision we pin.
    m = re.search(r"generated (\d{4}-\d{2}-\d{2}) from the catalog", text)
    if not m:
        die("catalog revision date not found in the reference")
    return m.group(1)


def main(argv):
    args, generated = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--generated" and i + 1 < len(argv):
            generated = argv[i + 1]
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) not in (1, 2):
        die("usage: gen-xid-catalog.py REFERENCE.md [OUT.json] "
            "[--generated YYYY-MM-DD]")
    if generated is None:
        generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if not re.match(r"^\d{4}-\d{2}-\d{2}$", generated):
        die("--generated wants YYYY-MM-DD")
    with open(args[0], encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    xids = parse_xids(lines)
    used = sorted({x["immediate"] for x in xids if x["immediate"]})
    cat = {
        "schema": SCHEMA,
        "catalog_date": catalog_date(text),
        "generated": generated,
        "sources": SOURCES,
        "basis": basis(catalog_date(text)),
        "bucket_actions": {b: BUCKET_ACTIONS[b] for b in
                           used + sorted(set(BUCKET_ACTIONS) - set(used))},
        "xids": xids,
        "sxid_ranges": parse_sxid_ranges(lines),
        "sxid_notable": sxid_notable(),
    }
    for a in list(cat["bucket_actions"].values()) + [x["action"] for x in xids]:
        assert a in ACTIONS, a
    out = json.dumps(cat, indent=1, ensure_ascii=False) + "\n"
    if len(args) == 2:
        with open(args[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main(sys.argv[1:])
