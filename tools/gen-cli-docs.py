#!/usr/bin/env python3
"""The man page of each command and the bash completion, generated from the
binary's own command and option tables (`cmax __cli-spec`, src/main.c and
core/options.h), so that they say what the binary does.

    tools/gen-cli-docs.py build/cmax            # rewrite man/ and completion/
    tools/gen-cli-docs.py build/cmax --out DIR  # into DIR/man, DIR/completion

Each page is man/src/cmax-CMD.1.in, the hand-written prose, with
@OPTIONS@ replaced by the OPTIONS section and @VERSION@ by the version.
After a line `.\\" @notes` the prose file holds what the page says of an
option beyond its one-line help, in the order and groups the page shows:

    .\\" @group Target            starts a subsection (.SS Target)
    .\\" @sub review              later notes are for `cmax CMD review`
    .\\" @option yes -y           the description of --yes (-y), roff lines
    .\\" @option sysroot DIR      ... of --sysroot DIR

The table decides which options exist: an option of the table without a
note gets its help line (with default, range and choices), one the notes
have and the table not is an error (the page would describe something the
binary refuses). A command without a table yet is documented from its notes,
or, with none, from its --help text. tests/cli/t-cli-docs.sh regenerates
into a temporary directory and compares."""
import argparse
import json
import os
import re
import subprocess
import sys

COMMANDS = ["audit", "bench", "health", "inject", "reboot-test", "rate", "sla", "accept", "minimums", "runs", "report"]
HELP_OPT = {"name": "help", "short": "h", "type": "flag", "metavar": None,
            "help": "show this help and exit", "default": None, "range": None,
            "units": None, "choices": None, "hidden": False, "path": False, "dir": False}


def die(msg):
    sys.exit("gen-cli-docs: " + msg)


def run_cmax(cmax, *args):
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1",
           "HOME": "/nonexistent-cmax-docs"}
    r = subprocess.run([cmax, *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout


def esc(s):
    """Text for a roff line: backslashes, dashes, a leading control character."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s.startswith((".", "'")) else s


def help_opts(text):
    """Options named in a --help text (for a command without a table):
    [(name, metavar or None)], in order of first mention."""
    seen, out = set(), []
    for m in re.finditer(r"(?<![\w-])--([a-z][a-z0-9-]*)(?:[ =]([A-Z][A-Z0-9_:]*)\b)?", text):
        if m.group(1) not in seen:
            seen.add(m.group(1))
            out.append((m.group(1), m.group(2)))
    return out


def parse_in(path):
    """(prose lines, notes): notes = {sub or "": [(group or None, name, short, metavar, [lines])]}."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        cut = lines.index('.\\" @notes')
    except ValueError:
        return lines, {}
    prose, notes = lines[:cut], {}
    sub, group, cur = "", None, None
    for ln in lines[cut + 1:]:
        m = re.match(r'^\.\\" @(group|sub|option)(?: (.*))?$', ln)
        if not m:
            if cur is None:
                if ln.strip() and not ln.startswith('.\\"'):
                    die(f"{path}: text outside an @option note: {ln!r}")
                continue
            cur[4].append(ln)
            continue
        kind, arg = m.group(1), (m.group(2) or "").strip()
        if kind == "sub":
            sub, group, cur = arg, None, None
        elif kind == "group":
            group, cur = arg or None, None
        else:
            words = arg.split()
            if not words:
                die(f"{path}: @option without a name")
            name, short, metavar = words[0], None, None
            for w in words[1:]:
                if re.fullmatch(r"-[A-Za-z0-9]", w):
                    short = w[1]
                else:
                    metavar = w
            cur = (group, name, short, metavar, [])
            notes.setdefault(sub, []).append(cur)
    return prose, notes


def synopsis(name, short, metavar):
    long = "\\-\\-" + name.replace("-", "\\-")
    if short and metavar:
        return f'.BR \\-{short} ", " {long} " \\fI{metavar}\\fR"'
    if short:
        return f'.BR \\-{short} ", " {long}'
    if metavar:
        return f'.BI {long} " {metavar}"'
    return f".B {long}"


def help_line(o):
    extra = []
    if o.get("default"):
        extra.append("default " + o["default"])
    if o.get("range"):
        extra.append(o["range"])
    if o.get("choices"):
        extra.append("one of " + ", ".join(o["choices"]))
    # the help line as the binary prints it (a command's name may start
    # it: no capital forced), its own closing parenthesis shared
    text = (o.get("help") or "").rstrip(".")
    if extra and text.endswith(")"):
        text = text[:-1] + "; " + "; ".join(extra) + ")"
    elif extra:
        text += " (" + "; ".join(extra) + ")"
    return esc(text + ".")


def option_items(opts, notes, where):
    """roff lines of the options of one (sub)command: from its table (opts,
    None when it has none) and its notes."""
    out, group = [], None
    if opts is None:
        order = [(g, n, s, m, body) for (g, n, s, m, body) in notes]
    else:
        visible = [o for o in opts if not o.get("hidden")] + [HELP_OPT]
        byname = {o["name"]: o for o in visible}
        known = {o["name"] for o in opts} | {"help"}
        for (_, n, _, _, _) in notes:
            if n not in known:
                die(f"{where}: the notes describe --{n}, which the option table does not have")
        noted = {n: (g, body) for (g, n, _, _, body) in notes}
        # the notes' order and groups first, then the table's options without a note
        order = []
        for (g, n, _, _, body) in notes:
            o = byname.get(n)
            if o:
                order.append((g, n, o.get("short"), o.get("metavar") if o["type"] not in ("flag", "count") else None, body))
        for o in visible:
            if o["name"] not in noted:
                mv = o.get("metavar") if o["type"] not in ("flag", "count") else None
                if mv is None and o["type"] not in ("flag", "count"):
                    mv = "VALUE"
                order.append((None, o["name"], o.get("short"), mv, [help_line(o)]))
    for (g, n, s, m, body) in order:
        if g != group and g:
            out.append(".SS " + g)
        group = g if g else group
        out.append(".TP")
        out.append(synopsis(n, s, m))
        out.extend(body)
    return out


def verbatim(text):
    out = [".PP", ".nf"]
    for ln in text.rstrip("\n").split("\n"):
        out.append(esc(ln.expandtabs()) if ln.strip() else "")
    out.append(".fi")
    return [ln if ln else ".sp" for ln in out]


def options_section(cmax, c, notes):
    out = [".SH OPTIONS"]
    top_notes = notes.get("", [])
    _, parent_help = run_cmax(cmax, c["name"], "--help")
    if c["options"] is not None or top_notes:
        out += option_items(c["options"], top_notes, c["name"])
    elif not c["subcommands"] or not c["needs_subcommand"]:
        out += verbatim(parent_help)
    for s in c["subcommands"]:
        if s["hidden"]:
            continue
        path = f'{c["name"]} {s["name"]}'
        sub_notes = notes.get(s["name"], [])
        opts = s["options"]
        if opts is None and not sub_notes:
            if c["options"] is not None:
                continue  # it shares the command's table
            _, text = run_cmax(cmax, c["name"], s["name"], "--help")
            if text == parent_help:
                continue  # the same parser as the command's (health check|watch)
            body = verbatim(text)
        else:
            body = option_items(opts, sub_notes, path)
        out.append(f'.SS "cmax {c["name"]} {s["name"]}"')
        out += body
    for sub in notes:
        if sub and sub not in {s["name"] for s in c["subcommands"]}:
            die(f'{c["name"]}: notes for an unknown subcommand {sub!r}')
    return out


def man_page(cmax, spec, c, srcdir):
    path = os.path.join(srcdir, "man", "src", f'cmax-{c["name"]}.1.in')
    if not os.path.exists(path):
        die(f"{path} is missing: every documented command has its prose file")
    prose, notes = parse_in(path)
    if prose.count("@OPTIONS@") != 1:
        die(f"{path}: needs exactly one @OPTIONS@ line")
    out = []
    for ln in prose:
        if ln == "@OPTIONS@":
            out += options_section(cmax, c, notes)
        else:
            out.append(ln.replace("@VERSION@", spec["version"]))
    return "\n".join(out) + "\n"


def value_kind(o):
    if o["type"] in ("flag", "count"):
        return None
    if o.get("choices"):
        return "choice:" + " ".join(o["choices"])
    if o.get("dir"):
        return "dir"
    if o.get("path"):
        return "file"
    return "value"


def completion_opts(cmax, path, opts):
    """[(--name, kind or None)] of one (sub)command for completion."""
    if opts is not None:
        res = [("--" + o["name"], value_kind(o)) for o in opts if not o.get("hidden")]
        return res + [("--help", None)]
    _, text = run_cmax(cmax, *path.split(), "--help")
    res = []
    for name, mv in help_opts(text):
        kind = None
        if mv:
            kind = "dir" if mv in ("DIR",) else "file" if mv in ("FILE", "PATH") else "value"
        res.append(("--" + name, kind))
    if ("--help", None) not in res:
        res.append(("--help", None))
    return res


def completion(cmax, spec):
    cmds = [c for c in spec["commands"] if not c["hidden"]]
    L = ["# bash completion for cmax(1): commands, subcommands, options, their choices.",
         "# Generated by tools/gen-cli-docs.py from `cmax __cli-spec`; do not edit.",
         "",
         "_cmax_subcommands() {",
         '\tcase $1 in']
    for c in cmds:
        subs = [s["name"] for s in c["subcommands"] if not s["hidden"]]
        if subs:
            L.append(f'\t{c["name"]}) echo "{" ".join(subs)}" ;;')
    L += ["\tesac", "}", "",
          "# the options of a command (\"bench storage\"), each with what its value is:",
          "# nothing (a flag), value, file, dir or choice:A B C",
          "_cmax_options() {", "\tcase $1 in"]
    choices = []
    for c in cmds:
        paths = [(c["name"], c["options"])]
        for s in c["subcommands"]:
            if not s["hidden"]:
                paths.append((f'{c["name"]} {s["name"]}', s["options"] if s["options"] is not None else c["options"]))
        for path, opts in paths:
            items = completion_opts(cmax, path, opts)
            body = " ".join(f"{n}={k.split(':')[0]}" if k else n for n, k in items)
            L.append(f'\t"{path}") echo "{body}" ;;')
            for n, k in items:
                if k and k.startswith("choice:"):
                    choices.append((f"{path} {n}", k[len("choice:"):]))
    L += ["\tesac", "}", "",
          "# the words an option of kind choice takes (\"bench storage --mode\")",
          "_cmax_choices() {", "\tcase $1 in"]
    for key, words in choices:
        L.append(f'\t"{key}") echo "{words}" ;;')
    L += ["\tesac", "}", "",
          "# what the value of option $2 of command $1 is; fails for a flag or an unknown option",
          "_cmax_value_kind() {",
          "\tlocal w",
          "\tfor w in $(_cmax_options \"$1\"); do",
          "\t\tcase $w in",
          "\t\t\"$2\"=*) echo \"${w#*=}\"; return 0 ;;",
          "\t\tesac",
          "\tdone",
          "\treturn 1",
          "}", "",
          "_cmax_complete_value() { # key, option, kind, word",
          "\tcase $3 in",
          "\tchoice) COMPREPLY=($(compgen -W \"$(_cmax_choices \"$1 $2\")\" -- \"$4\")) ;;",
          "\tdir) COMPREPLY=($(compgen -d -- \"$4\")) ;;",
          "\t*) COMPREPLY=() ;; # files and free values: bash's default completion",
          "\tesac",
          "}", "",
          "_cmax() {",
          "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} sub= key kind w",
          "\tCOMPREPLY=()",
          "\tif [ \"$COMP_CWORD\" -eq 1 ]; then",
          f'\t\tCOMPREPLY=($(compgen -W "{" ".join(c["name"] for c in cmds)}" -- "$cur"))',
          "\t\treturn",
          "\tfi",
          "\tif [ \"$cmd\" = help ]; then",
          "\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"" + " ".join(c["name"] for c in cmds) + "\" -- \"$cur\"))",
          "\t\t[ \"$COMP_CWORD\" -eq 3 ] && COMPREPLY=($(compgen -W \"$(_cmax_subcommands \"${COMP_WORDS[2]}\")\" -- \"$cur\"))",
          "\t\treturn",
          "\tfi",
          "\tlocal subs=$(_cmax_subcommands \"$cmd\")",
          "\tif [ -n \"$subs\" ] && [ \"$COMP_CWORD\" -ge 3 ]; then",
          "\t\tfor w in $subs; do [ \"$w\" = \"${COMP_WORDS[2]}\" ] && sub=$w; done",
          "\tfi",
          "\tkey=$cmd${sub:+ $sub}",
          "\t# --opt=VALUE: bash splits it at = (COMP_WORDBREAKS)",
          "\tif [ \"$cur\" = = ]; then",
          "\t\tkind=$(_cmax_value_kind \"$key\" \"$prev\") && _cmax_complete_value \"$key\" \"$prev\" \"$kind\" \"\"",
          "\t\treturn",
          "\tfi",
          "\tif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 3 ]; then",
          "\t\tw=${COMP_WORDS[COMP_CWORD-2]}",
          "\t\tkind=$(_cmax_value_kind \"$key\" \"$w\") && _cmax_complete_value \"$key\" \"$w\" \"$kind\" \"$cur\"",
          "\t\treturn",
          "\tfi",
          "\tif kind=$(_cmax_value_kind \"$key\" \"$prev\"); then",
          "\t\t_cmax_complete_value \"$key\" \"$prev\" \"$kind\" \"$cur\"",
          "\t\treturn",
          "\tfi",
          "\tcase $cur in",
          "\t-*)",
          "\t\tlocal names=",
          "\t\tfor w in $(_cmax_options \"$key\"); do names=\"$names ${w%%=*}\"; done",
          "\t\tCOMPREPLY=($(compgen -W \"$names\" -- \"$cur\"))",
          "\t\t;;",
          "\t*)",
          "\t\t[ -n \"$subs\" ] && [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))",
          "\t\t;;",
          "\tesac",
          "}",
          "complete -o bashdefault -o default -F _cmax cmax", ""]
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmax", help="the cmax binary")
    ap.add_argument("--out", help="write DIR/man/*.1 and DIR/completion/cmax.bash (default: the source tree)")
    a = ap.parse_args()
    srcdir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = a.out or srcdir
    rc, text = run_cmax(a.cmax, "__cli-spec")
    if rc != 0:
        die(f"{a.cmax} __cli-spec exited {rc}")
    spec = json.loads(text)
    if spec.get("schema") != "cmax.cli-spec/1":
        die("not a cmax.cli-spec/1 document")
    bycmd = {c["name"]: c for c in spec["commands"]}
    os.makedirs(os.path.join(out, "man"), exist_ok=True)
    os.makedirs(os.path.join(out, "completion"), exist_ok=True)
    for name in COMMANDS:
        if name not in bycmd:
            die(f"the binary has no command {name}")
        with open(os.path.join(out, "man", f"cmax-{name}.1"), "w") as f:
            f.write(man_page(a.cmax, spec, bycmd[name], srcdir))
    with open(os.path.join(out, "completion", "cmax.bash"), "w") as f:
        f.write(completion(a.cmax, spec))


if __name__ == "__main__":
    main()
