#!/usr/bin/env bash
# Progress of long runs (core/progress.h) on a real fio sweep: on a terminal
# (a pseudo-terminal from util-linux's script) one redrawn "[N/M] ... ETA"
# line on stderr, cleared at the end; without one, one line per finished
# case, as many as the document has rows; -q silences it; --json on stdout
# stays a valid document; the text table's rows come as each case finishes;
# --dry-run's estimate is the sum the fio options of the plan imply.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
if ! command -v fio >/dev/null; then
	skip "fio is not installed (apt-get install fio)"
	done_testing; exit
fi
D=$TMP/fs; mkdir -p "$D"

# ---- --dry-run: the estimate, from the fio options in the plan -----------
# A random case is time based: --ramp_time then --runtime; a sequential one
# stops at --runtime at the latest: the sum of those is the plan's bound.
"$CMAX" bench storage --path "$D" --dry-run --json --full --clients 2 >"$TMP/plan.json"
check "dry-run --json: estimated_seconds is the sum of runtime (+ ramp_time when time based) of its commands" python3 -c '
import json,re,sys; p=json.load(open(sys.argv[1]))
def est(c):
    rt=int(re.search(r"--runtime=(\d+)",c).group(1)); ramp=re.search(r"--ramp_time=(\d+)",c)
    return rt+(int(ramp.group(1)) if ramp and "--time_based=1" in c else 0)
want=[est(c) for c in p["commands"]]
assert len(p["cases"])==len(p["commands"])==16, len(p["cases"])
assert [c["estimated_seconds"] for c in p["cases"]]==want, ([c["estimated_seconds"] for c in p["cases"]], want)
assert p["estimated_seconds"]==sum(want), (p["estimated_seconds"], sum(want))
assert sum(want)==8*30+8*(30+2), sum(want)   # --full: 30 s runtime, 2 s ramp; 8 random of 16
assert "runtime 30 s + ramp 2 s" in p["estimate_basis"], p["estimate_basis"]
assert p["cases"][0]["case"]=="seq-write-1m-buffered-c1" and p["cases"][-1]["case"]=="rand-read-64k-direct-c2"' "$TMP/plan.json"
"$CMAX" bench storage --path "$D" --dry-run --full --clients 2 >"$TMP/plan.txt"
check "dry-run text: the same estimate, with its basis" grep -Eq \
	"^Estimated duration: 496 s \(8m16s\) for 16 cases: runtime 30 s \+ ramp 2 s per random case" "$TMP/plan.txt"
"$CMAX" bench storage --path "$D" --dry-run --json --runtime 7 --only seq-read >"$TMP/plan2.json"
check "dry-run: quick sequential cases are bounded by --runtime (2 cases x 7 s)" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); assert p["estimated_seconds"]==14 and len(p["cases"])==2, p["cases"]' "$TMP/plan2.json"
# Endurance: a phase of M minutes is n fio runs of i s, i = M*60/15 rounded
# into [1, 30], n = M*60/i rounded, at least 2; two phases per client count.
"$CMAX" bench storage --path "$D" --dry-run --json --endurance --endurance-minutes 2 --clients 2 >"$TMP/plan3.json"
check "dry-run endurance: 2 client counts x 2 phases x 15 intervals of 8 s = 480 s" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); assert p["estimated_seconds"]==480, p["estimated_seconds"]
assert [c["estimated_seconds"] for c in p["cases"]]==[120]*4, p["cases"]' "$TMP/plan3.json"
check "dry-run wrote nothing" [ -z "$(find "$D" -mindepth 1 | head -1)" ]

# cmax accept --dry-run: a run lasts at most the budgets (duration:) of the
# tests it would run; the plan's durations are read here from the YAML.
PLAN=$SRCDIR/tests/fixtures/accept/run.yaml
want=$(python3 -c '
import re,sys
mult={"s":1,"m":60,"h":3600,"d":86400}
tot=0
for m in re.finditer(r"^    duration: (\S+)$", open(sys.argv[1]).read(), re.M):
    tot+=sum(int(n)*mult[u] for n,u in re.findall(r"(\d+)([smhd])", m.group(1)))
print(tot)' "$PLAN")
"$CMAX" accept "$PLAN" --var ROOT="$TMP" --var DIR="$D" --dry-run --json >"$TMP/acc.json"
check "accept --dry-run --json: estimated_seconds is the sum of the tests' budgets ($want s)" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); want=int(sys.argv[2])
assert want>0 and d["estimated_seconds"]==want==sum(t["duration_s"] for t in d["tests"] if t["run"]), (d["estimated_seconds"], want)
assert "budget" in d["estimate_basis"]' "$TMP/acc.json" "$want"
"$CMAX" accept "$PLAN" --var ROOT="$TMP" --var DIR="$D" --dry-run --only metadata >"$TMP/acc.txt"
check "accept --dry-run --only: only the test that would run counts (half of $want s)" \
	grep -q "^Estimated duration: at most $((want / 2)) s .* for 1 test: " "$TMP/acc.txt"

# ---- without a terminal: one line per finished case ---------------------
"$CMAX" bench storage --path "$D" --yes --json --clients 2 --size 8M --only seq >"$TMP/q.json" 2>"$TMP/q.err" </dev/null
check "sweep (8 cases) exits 0" [ $? -eq 0 ]
check "--json on stdout is still one valid document" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/q.json"
check "one progress line per case, as many as the document's rows, numbered 1..M in order" python3 -c '
import json,re,sys; d=json.load(open(sys.argv[1])); lines=open(sys.argv[2]).read().splitlines()
pl=[l for l in lines if l.startswith("cmax bench storage: case ")]
n=len(d["results"]); assert n==8 and len(pl)==n, (n, pl)
for i,l in enumerate(pl, 1):
    m=re.match(r"cmax bench storage: case (\d+)/(\d+) (\S+) done in \d+s, (PASS|WARN|FAIL|SKIP|ERROR) \(elapsed (\d+h)?(\d+m)?\d+s, ETA (\?|(\d+h)?(\d+m)?\d+s)\)$", l)
    assert m and int(m.group(1))==i and int(m.group(2))==n, l
    r=d["results"][i-1]; assert "bench.storage-"+m.group(3)==r["id"] and m.group(4)==r["status"], (l, r["id"], r["status"])
assert pl[-1].endswith("ETA 0s)"), pl[-1]' "$TMP/q.json" "$TMP/q.err"
check "no terminal: no carriage returns or escape sequences on stderr" bash -c "! grep -q \$'[\\r\\033]' '$TMP/q.err'"

"$CMAX" bench storage --path "$D" --yes --json -q --size 8M --only seq-read >"$TMP/quiet.json" 2>"$TMP/quiet.err" </dev/null
check "-q: exits 0 with a valid document" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/quiet.json"
check "-q: no progress on stderr" bash -c "! grep -q 'case [0-9]' '$TMP/quiet.err'"

# ---- on a terminal: one redrawn status line ----------------------------
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
	TERM=xterm script -qec "'$CMAX' bench storage --path '$D' --yes --json --size 8M --only seq-read --clients 2 >'$TMP/pty.json'" \
		/dev/null >"$TMP/pty.out" 2>&1 </dev/null
	check "pty: the JSON on stdout is valid and complete (4 rows)" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert len(d["results"])==4' "$TMP/pty.json"
	check "pty: [N/M] status lines for each case, with elapsed and an ETA" python3 -c '
import re,sys; s=open(sys.argv[1],"rb").read().decode()
for i in range(1,5):
    assert re.search(r"\r\[%d/4\] seq-read-1m-\S+-c[12]  elapsed \d+s  ETA (\?|\d+s)\x1b\[K" % i, s), (i, s)
# cleared at the end: after the last status line, only the erase (other
# messages, such as the results store saying why it did not record, may follow)
last=s.rindex("\r[4/4]"); tail=s[last:]
assert re.match(r"\r\[4/4\][^\r]*\x1b\[K\r\x1b\[K", tail), repr(tail)
assert "case 1/4" not in s' "$TMP/pty.out"
	check "pty: before any case finished the ETA comes from the estimates (4 x 1 s runtime)" grep -q \
		$'\[1/4\] seq-read-1m-buffered-c1  elapsed 0s  ETA 4s' "$TMP/pty.out"
	TERM=dumb script -qec "'$CMAX' bench storage --path '$D' --yes --json --size 8M --only seq-read-1m-b >/dev/null" \
		/dev/null >"$TMP/dumb.out" 2>&1 </dev/null
	check "pty with TERM=dumb: the line-per-case form" grep -q "^cmax bench storage: case 1/1 seq-read-1m-buffered-c1 done in" "$TMP/dumb.out"
	TERM=xterm script -qec "'$CMAX' bench storage --path '$D' --yes -q --json --size 8M --only seq-read >/dev/null" \
		/dev/null >"$TMP/qpty.out" 2>&1 </dev/null
	check "pty with -q: no status line, no case line" python3 -c '
import sys; s=open(sys.argv[1],"rb").read().decode(); assert "[1/" not in s and "ETA" not in s and "case 1" not in s, repr(s)' "$TMP/qpty.out"
else
	skip "no usable script(1) (util-linux): terminal form not exercised"
fi

# ---- the text table: each row as its case finishes ----------------------
# Two 2 s random cases: the first row must be on stdout well before the end.
check "text table: the first row arrives while the second case still runs" python3 -c '
import subprocess,sys,time
p=subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
seen=[]
for l in p.stdout: seen.append((time.monotonic(), l))
end=time.monotonic(); assert p.wait()==0
rows=[(t,l) for t,l in seen if "rand-read-4k-buffered-c" in l]
assert len(rows)==2, seen
assert end-rows[0][0] >= 1.0, ("first row only %.2f s before the end" % (end-rows[0][0]))
assert seen[0][1].startswith("cmax bench storage on ") and " checks)" in seen[-1][1], seen' \
	"$CMAX" bench storage --path "$D" --yes --only rand-read-4k --clients 2 --runtime 2 --size 8M
check "nothing left in the directory" [ -z "$(find "$D" -mindepth 1 | head -1)" ]
done_testing
