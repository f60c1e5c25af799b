#!/usr/bin/env python3
"""Every graded figure in data/ says where it comes from (docs/provenance.md).

Usage: provenance.py [--data-dir DIR] [--today YYYY-MM-DD] [FILE...]

Walks the given policy files (default: every shipped one, DIR/*.json and
DIR/accept/*.yaml) and prints one line per problem, naming the file and the
JSON Pointer (RFC 6901) of the offending value:

  - a number that no basis covers: the object that directly holds it has no
    `basis`; for a number in an array, or in an object that sits in an
    array, the object holding the array may carry it instead;
  - an object that must carry a basis although its figures are strings
    (REQUIRED below: the version floors and bulletin dates of the minimum
    table, the facts of the Xid catalog);
  - a malformed basis: not an object, an unknown kind, a required field
    missing or empty, a field the kind does not have, `checked` not a real
    YYYY-MM-DD date or later than today, `url` not http(s).

A number that is not a figure (a format version, an Xid code used as a
name) is skipped only through EXEMPT below, each entry with its reason; a
number is never skipped for any other reason. Exit 0 when nothing is
wrong, 1 otherwise, 2 when a file cannot be read (named on stderr).
"""

import datetime
import fnmatch
import json
import os
import re
import sys

import yaml

KINDS = {
    "method": ("figure",),
    "declared": ("reason", "revisit"),
    "source": ("url", "checked", "figure"),
    "estimated": ("reason", "revisit"),
}

# (file pattern relative to the data directory, pointer regex, reason)
EXEMPT = [
    ("minimum-versions.json", r"^/schemaVersion$",
     "format version of the table; the loader refuses anything but 1"),
    ("sla-levels.json", r"^/version$",
     "format version of the SLA file, echoed as policy_version"),
    ("health-policy.json", r"^/version$",
     "format version of the health policy"),
    ("rubric.json", r"^/version$",
     "version label of the rubric, printed by every rating"),
    ("accept/*.yaml", r"^/version$",
     "version label of the acceptance plan"),
    ("xid-catalog.json", r"^/xids/\d+/code$",
     "Xid code: the name of a catalog row, not a figure"),
    ("xid-catalog.json", r"^/sxid_ranges/\d+/(first|last)$",
     "SXid codes bounding a unit's range: names, not figures"),
    ("xid-catalog.json", r"^/sxid_notable/\d+/code$",
     "SXid code: the name of a row, not a figure"),
]

# (file pattern, pointer regex of an object that must carry a basis, reason)
REQUIRED = [
    ("minimum-versions.json", r"^/components/[^/]+$",
     "a component's version floors and bulletin dates are strings; its basis covers them"),
    ("minimum-versions.json", r"^/components/[^/]+/packages/[^/]+$",
     "an Ubuntu package's fixed version and notice dates are strings; its basis covers them"),
    ("kernel-series.json", r"^/series/\d+$",
     "a kernel line's end-of-support date is a string; its basis covers it"),
    ("kernel-series.json", r"^/series/\d+/fixes/\d+$",
     "a fixed release is a string; its basis (source: FAIL below it, estimated: WARN) covers it"),
    ("kernel-series.json", r"^/faults/[^/]+$",
     "a fault's identity and references are strings; its basis covers them"),
    ("xid-catalog.json", r"^$",
     "the catalog's codes, buckets and applicability are NVIDIA's facts (strings)"),
]

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
URL = re.compile(r"^https?://[^\s/]+\S*$")


def escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def matches(rules, name, pointer):
    return any(fnmatch.fnmatch(name, f) and re.search(p, pointer) for f, p, _ in rules)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_basis(b, today):
    """Problems of one basis value, as short phrases."""
    if not isinstance(b, dict):
        return ["basis must be an object"]
    kind = b.get("kind")
    if kind not in KINDS:
        return ["basis kind %r is not one of %s" % (kind, ", ".join(KINDS))]
    out = []
    need = KINDS[kind]
    for f in need:
        v = b.get(f)
        if not isinstance(v, str) or not v.strip():
            out.append("basis of kind %s needs a non-empty string %r" % (kind, f))
    for f in sorted(set(b) - set(need) - {"kind"}):
        out.append("basis of kind %s has no field %r" % (kind, f))
    if kind == "source":
        url, checked = b.get("url"), b.get("checked")
        if isinstance(url, str) and url.strip() and not URL.match(url):
            out.append("basis url %r is not an http(s) URL" % url)
        if isinstance(checked, str) and checked.strip():
            day = None
            if DATE.match(checked):
                try:
                    day = datetime.date.fromisoformat(checked)
                except ValueError:
                    pass
            if day is None:
                out.append("basis checked %r is not a YYYY-MM-DD date" % checked)
            elif day > today:
                out.append("basis checked %s is later than today (%s)" % (checked, today))
    return out


class Walker:
    def __init__(self, name, today):
        self.name = name
        self.today = today
        self.problems = []

    def say(self, pointer, msg):
        self.problems.append("%s: %s: %s" % (self.name, pointer or "/", msg))

    def covered(self, chain):
        """chain: (value, pointer) from the root down to the number's parent."""
        i = len(chain) - 1
        while i >= 0 and isinstance(chain[i][0], list):
            i -= 1
        if i < 0:
            return False
        if "basis" in chain[i][0]:
            return True
        j = i - 1
        if j >= 0 and isinstance(chain[j][0], list):
            while j >= 0 and isinstance(chain[j][0], list):
                j -= 1
            return j >= 0 and "basis" in chain[j][0]
        return False

    def walk(self, v, pointer, chain):
        if isinstance(v, dict):
            if matches(REQUIRED, self.name, pointer) and "basis" not in v:
                self.say(pointer, "this object needs a basis (method, declared, source or estimated)")
            here = chain + [(v, pointer)]
            for k, x in v.items():
                p = pointer + "/" + escape(k)
                if k == "basis":
                    for msg in check_basis(x, self.today):
                        self.say(p, msg)
                    continue
                self.walk(x, p, here)
        elif isinstance(v, list):
            here = chain + [(v, pointer)]
            for i, x in enumerate(v):
                self.walk(x, "%s/%d" % (pointer, i), here)
        elif is_number(v):
            if matches(EXEMPT, self.name, pointer):
                return
            if not self.covered(chain):
                self.say(pointer, "%s has no basis (the object that holds it, or the one holding "
                                  "its array, needs one)" % json.dumps(v))


def load(path):
    with open(path, encoding="utf-8") as f:
        if path.endswith((".yaml", ".yml")):
            return yaml.safe_load(f)
        return json.load(f)


def shipped(data_dir):
    out = []
    for sub, ext in (("", ".json"), ("accept", ".yaml")):
        d = os.path.join(data_dir, sub)
        out += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(ext))
    return out


def check_file(path, data_dir, today):
    rel = os.path.relpath(path, data_dir)
    name = rel if not rel.startswith("..") else os.path.basename(path)
    w = Walker(name, today)
    w.walk(load(path), "", [])
    return w.problems


def main(argv):
    data_dir, today, files = None, datetime.datetime.now(datetime.timezone.utc).date(), []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--data-dir", "--today") and i + 1 < len(argv):
            if a == "--data-dir":
                data_dir = argv[i + 1]
            else:
                today = datetime.date.fromisoformat(argv[i + 1])
            i += 2
            continue
        if a.startswith("-"):
            sys.stderr.write("usage: provenance.py [--data-dir DIR] [--today YYYY-MM-DD] [FILE...]\n")
            return 2
        files.append(a)
        i += 1
    if data_dir is None:
        data_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")
    data_dir = os.path.abspath(data_dir)
    if not files:
        files = shipped(data_dir)
    bad = False
    for f in files:
        try:
            problems = check_file(os.path.abspath(f), data_dir, today)
        except (OSError, ValueError, yaml.YAMLError) as e:
            sys.stderr.write("provenance.py: %s: %s\n" % (f, str(e).splitlines()[0] if str(e) else e))
            return 2
        for p in problems:
            print(p)
        bad |= bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
