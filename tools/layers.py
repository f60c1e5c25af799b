#!/usr/bin/env python3
"""The layers of cmax's sources, lowest first, and what each may include.

A layer may include its own folders and every folder of a lower layer,
never a higher one (util-linux keeps its context below every reader; curl's
tool never reaches into its library). Two uses:

  layers.py views BUILDDIR   make BUILDDIR/layers/<layer>/ with a link per
                             folder the layer may see and print the layers
                             ("name folder,folder" per line); meson builds
                             one library per layer with only its view on
                             the include path, so an include of a higher
                             layer fails to build
  layers.py check SRCDIR     read every #include of SRCDIR/src and print
                             each back-edge; exit 1 when there is one

Command folders are one layer each, side by side: none may include another
(main.c, which dispatches to all of them, is above them all).
"""
import os
import re
import sys

# (layer, folders), lowest first.
LAYERS = [
    ("core", ["core"]),
    ("base", ["parse", "xid", "policy"]),
    ("engine", ["engine"]),
    ("collect", ["collect"]),
    ("checks", ["checks"]),
    ("output", ["report", "evidence"]),
    ("store", ["store"]),
    ("fleet", ["fleet"]),
]
# Commands: each sees every library layer and itself, not the others.
COMMANDS = ["audit", "bench", "health", "inject", "rate", "sla", "accept", "minimums", "results"]


def allowed():
    """layer name -> set of folders it may include"""
    out, below = {}, []
    for name, folders in LAYERS:
        below = below + folders
        out[name] = set(below)
    for c in COMMANDS:
        out["cmd-" + c] = set(below) | {c}
    return out


def layer_of(folder):
    for name, folders in LAYERS:
        if folder in folders:
            return name
    if folder in COMMANDS:
        return "cmd-" + folder
    return None


def views(builddir):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    src = os.path.realpath(src)
    for layer, folders in allowed().items():
        d = os.path.join(builddir, "layers", layer)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            if f not in folders:
                os.unlink(os.path.join(d, f))
        for f in folders:
            link = os.path.join(d, f)
            if not os.path.islink(link):
                os.symlink(os.path.join(src, f), link)
    # for meson: "layer folder,folder" per line, lowest first
    for name, folders in LAYERS:
        print(name, ",".join(folders))
    for c in COMMANDS:
        print("cmd-" + c, c)
    return 0


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check(srcdir):
    root = os.path.join(srcdir, "src")
    ok = allowed()
    bad = []
    for dirpath, _, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        folder = rel.split(os.sep)[0]
        if folder == ".":
            continue  # main.c sees everything
        layer = layer_of(folder)
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                if inc.startswith("../"):
                    bad.append("%s/%s: relative include \"%s\" (use the rooted form \"dir/file.h\")" % (rel, f, inc))
                    continue
                if "/" not in inc:
                    continue  # same folder, config.h, a .def table
                target = inc.split("/")[0]
                if layer is None:
                    bad.append("%s/%s: folder %s is in no layer (tools/layers.py)" % (rel, f, folder))
                    break
                if target not in ok[layer]:
                    bad.append("%s/%s: includes \"%s\": layer %s may not include %s (layer %s)"
                               % (rel, f, inc, layer, target, layer_of(target) or "unknown"))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("views", "check"):
        sys.stderr.write("usage: layers.py views BUILDDIR | check SRCDIR\n")
        sys.exit(64)
    sys.exit(views(sys.argv[2]) if sys.argv[1] == "views" else check(sys.argv[2]))
