#!/usr/bin/env bash
# cmax sla keeps the shape its headers describe (src/sla/model.h): the
# parsers and the event model in src/parse (sla_*), the engine, the report
# and the command in src/sla, and no call cycle between their files - a
# file only calls files below it (parsers -> events, engine -> layout and
# policy, report -> engine, the command -> everything). The calls are read
# from the built objects (nm), so a new back-call fails here even when the
# includes stay legal. Detection walks the parser table: no parser's
# file calls the table.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
if ! command -v nm >/dev/null; then
	skip "nm not installed (binutils)"
	done_testing
	exit
fi
nm -A "$BUILD"/*.a 2>/dev/null >"$TMP/nm" || true
check "the sla objects are in the build's libraries" grep -q "src_sla_engine.c.o:" "$TMP/nm"
"$PY" - "$TMP/nm" >"$TMP/out" <<'PYEOF'
import collections, re, sys
defs, uses = collections.defaultdict(set), collections.defaultdict(set)
for line in open(sys.argv[1]):
    # "lib.a:member.o:ADDR T sym" (thin archives name the member by its path)
    m = re.search(r'(src_(?:sla|parse_sla)_\w+)\.c\.o:\s*(?:[0-9a-f]+\s+)?([A-Za-z])\s+(\S+)$', line.strip())
    if not m:
        continue
    f, kind, sym = m.groups()
    if kind in "TDRB":
        defs[f].add(sym)
    elif kind == "U":
        uses[f].add(sym)
owner = {s: f for f, ss in defs.items() for s in ss}
edges = {f: sorted({owner[s] for s in uses[f] if s in owner and owner[s] != f}) for f in set(defs) | set(uses)}
state, cycles = {}, []
def walk(f, path):
    state[f] = 1
    for g in edges.get(f, []):
        if state.get(g) == 1:
            cycles.append(" -> ".join(path[path.index(g):] + [g]))
        elif not state.get(g):
            walk(g, path + [g])
    state[f] = 2
for f in sorted(edges):
    if not state.get(f):
        walk(f, [f])
print("files %d" % len(edges))
for c in cycles:
    print("cycle " + c)
table = "src_parse_sla_formats"
for f, gs in sorted(edges.items()):
    if f.startswith("src_parse_") and any(g.startswith("src_sla_") for g in gs):
        print("upcall %s -> %s" % (f, [g for g in gs if g.startswith("src_sla_")]))
    if f.startswith("src_parse_sla_") and f != table and table in gs:
        print("table %s" % f)
PYEOF
diag <"$TMP/out"
check "sla: at least the 14 files of the shape" "$PY" -c "import sys; sys.exit(int(open('$TMP/out').readline().split()[1]) < 14)"
check "no call cycle between the sla files" test -z "$(grep '^cycle' "$TMP/out")"
check "src/parse calls nothing of src/sla" test -z "$(grep '^upcall' "$TMP/out")"
check "no parser calls the table back" test -z "$(grep '^table' "$TMP/out")"
check "src/parse includes no src/sla header" test -z "$(grep -l '#include "sla/' "$SRCDIR"/src/parse/*.[ch])"
done_testing
