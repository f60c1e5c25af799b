#!/usr/bin/env python3
"""Fleet audit at provider scale, through a replaying launcher.

`cmax audit --slurm` on the coordinator (login node) against N recorded
node documents that a fake srun returns at once, for N = 1, 100, 1000 and
10000: the coordinator's wall time, peak memory (max RSS, wait4) and CPU per
N, the ratio to N=1 and the cost per node. Goal: linear, under 3 s and
200 MB at 1,000 nodes. Then the CPU time (user+sys, the replayed tools it
runs included) of one `cmax node-collect` on every fixture host, replayed as
tests/cli/t-fixtures.sh does (sysroot + recorded tools); goal under 60 ms.

The node documents are real: `cmax node-collect` runs once on the
h100-healthy fixture and once on misconfig-h100 (older driver, kernel, OS
point release, NCCL, VBIOS); every node is the healthy one under its own
name (gpu00001...), except the last 1% (one rack), which is the
misconfigured one, so every drift check has a finding to build. The Slurm
client tools are bench/fleet-replay/fake-slurm-replay replaying outputs of
a real Slurm 22.05 (bench/fleet-replay/: scontrol show config/node/
partition, srun --help and --mpi=list, recorded from tests/slurm/slurm-up.sh
and made N nodes wide). A benchmark, not a test: it prints figures.

    bench/fleet-replay.py            # SIZES="1 100 1000 10000" RUNS=3 BUILD=build
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(SRC, "build"))
CMAX = os.path.realpath(os.path.join(BUILD, "cmax"))
FAKECMD = os.path.join(BUILD, "fakecmd")
REPLAY = os.path.join(SRC, "bench", "fleet-replay")
SIZES = [int(x) for x in os.environ.get("SIZES", "1 100 1000 10000").split()]
RUNS = int(os.environ.get("RUNS", "3"))
HOSTS = os.path.join(SRC, "tests", "fixtures", "hosts")
GOAL_WALL_S, GOAL_RSS_MB, GOAL_NODE_CPU_MS = 3.0, 200.0, 60.0
LINE_MAX = 1000  # src/parse/nodewire.h NODEWIRE_LINE_MAX
PER_NODE_TIMEOUT = 120  # --node-timeout default (src/fleet/slurm_fanout.c)
HEALTHCHECK = "/etc/slurm/healthcheck.sh"  # HealthCheckProgram of the recorded config


def measured(argv, cwd=None, env=None, stdout=subprocess.DEVNULL):
    """Run argv; (exit status, wall s, max RSS MB, user+sys s) from wait4."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.stderr.write(err.decode(errors="replace")[-2000:])
    return p.returncode, wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def median(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 2]


def fixture_env(hd, tmp, host):
    """The environment run_fixture (tests/lib/tap.sh) gives a fixture host."""
    bindir = os.path.join(tmp, "bin-" + host)
    subprocess.run([os.path.join(SRC, "tests", "fakecmd", "mkbin.sh"), os.path.join(hd, "cmd"), FAKECMD, bindir],
                   check=True, stdout=subprocess.DEVNULL)
    env = {"HOME": os.path.join(tmp, "home-" + host), "PATH": bindir, "TZ": "UTC",
           "CMAX_FAKE_DIR": os.path.join(hd, "cmd"), "CMAX_FAKE_LOG": os.path.join(tmp, "fake-" + host + ".log"),
           "CMAX_DATADIR": os.path.join(SRC, "data")}
    envfile = os.path.join(hd, "env")
    if os.path.exists(envfile):
        for line in open(envfile):
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def node_collect(host, tmp, out=None):
    """One `cmax node-collect` on a fixture host: (rc, wall, rss, cpu)."""
    hd = os.path.join(HOSTS, host)
    env = fixture_env(hd, tmp, host)
    argv = [CMAX, "node-collect", "--sysroot", "root", "--node-name", "gpu00001"]
    if out:
        with open(out, "wb") as f:
            return measured(argv, cwd=hd, env=env, stdout=f)
    return measured(argv, cwd=hd, env=env)


def wire_decode(path):
    """The document in one node's CMAXNODE lines (src/parse/nodewire.h)."""
    parts, total = {}, 0
    for line in open(path):
        tag, _node, seq, chunk = line.rstrip("\n").split(" ", 3)
        assert tag == "CMAXNODE"
        n, total = map(int, seq.split("/"))
        parts[n] = chunk
    assert sorted(parts) == list(range(1, total + 1)), path
    return json.loads("".join(parts[i] for i in range(1, total + 1)))


def wire_encode(node, js):
    """nodewire_encode: numbered lines of at most LINE_MAX bytes."""
    chunk = LINE_MAX - (len("CMAXNODE") + len(node) + 13 + 3 + 1)
    total = max(1, (len(js) + chunk - 1) // chunk)
    return "".join("CMAXNODE %s %d/%d %s\n" % (node, i + 1, total, js[i * chunk:(i + 1) * chunk])
                   for i in range(total))


def template(doc):
    """The document as compact JSON with @NODE@ where the node's name goes."""
    d = dict(doc)
    d["node"] = "@NODE@"
    d["host"] = "@NODE@"
    return json.dumps(d, separators=(",", ":"), ensure_ascii=True)


def rec(base, tool, n, argv, stdout):
    d = os.path.join(base, tool, "%02d" % n)
    os.makedirs(d)
    with open(os.path.join(d, "argv"), "w") as f:
        f.write("".join(a + "\n" for a in argv))
    if isinstance(stdout, str):
        with open(os.path.join(d, "stdout"), "w") as f:
            f.write(stdout)
    return os.path.join(d, "stdout")


def replay_dir(base, n, good, bad):
    """The recordings for an N-node fleet; the fan-out's output streamed to disk."""
    names = ["gpu%05d" % i for i in range(1, n + 1)]
    expr = "gpu[00001-%05d]" % n if n > 1 else "gpu00001"
    drifted = max(0, n // 100)  # the last rack: 1% of the nodes
    tpl = lambda f: open(os.path.join(REPLAY, f)).read()
    rec(base, "scontrol", 1, ["show", "config"], tpl("scontrol-show-config"))
    rec(base, "scontrol", 2, ["show", "hostnames", expr], "".join(x + "\n" for x in names))
    node_line = tpl("scontrol-show-node").rstrip("\n")
    rec(base, "scontrol", 3, ["show", "node", "-o"], "".join(node_line.replace("@NODE@", x) + "\n" for x in names))
    part = tpl("scontrol-show-partition").replace("@LIST@", expr).replace("@N@", str(n))
    rec(base, "scontrol", 4, ["show", "partition", "-o"], part.replace("@CPUS@", str(2 * n)).replace("@MEM@", str(1000 * n)))
    rec(base, "sinfo", 1, ["-h", "-o", "%R|%a|%D|%T|%N"], "gpu|up|%d|idle|%s\n" % (n, expr))
    rec(base, "sacct", 1, ["-a", "-X", "-n", "-P", "-S", "now-1hour", "-o", "JobID,State"], "")
    rec(base, "srun", 1, ["--help"], tpl("srun-help"))
    rec(base, "srun", 2, ["--mpi=list"], tpl("srun-mpi-list"))
    rec(base, "srun", 3, ["-N1", "-n1", "--immediate=20", "--job-name=cmax-audit-probe", "--time=1",
                          "--quit-on-interrupt", "true"], "")
    wait_s = PER_NODE_TIMEOUT + 5
    step = ["-N", str(n), "-n", str(n), "--ntasks-per-node=1", "--kill-on-bad-exit=0", "--wait=%d" % wait_s,
            "--mpi=none", "--quit-on-interrupt", "--job-name=cmax-node-collect", "-w", expr,
            "--immediate=%d" % PER_NODE_TIMEOUT, "--time=%d" % ((PER_NODE_TIMEOUT + wait_s + 20 + 59) // 60),
            CMAX, "node-collect", "--timeout", str(PER_NODE_TIMEOUT), "--healthcheck-program", HEALTHCHECK]
    out = rec(base, "srun", 4, step, None)
    with open(out, "w") as f:
        for i, x in enumerate(names):
            f.write(wire_encode(x, (bad if i >= n - drifted else good).replace("@NODE@", x)))
    rec(base, "ssh", 1, ["*"], "")
    return expr, drifted


def coordinator(tmp, n, good, bad):
    base = os.path.join(tmp, "replay-%d" % n)
    expr, drifted = replay_dir(base, n, good, bad)
    fakebin = os.path.join(tmp, "fakebin")
    if not os.path.isdir(fakebin):
        os.makedirs(fakebin)
        for t in ("srun", "scontrol", "sinfo", "sacct", "ssh"):
            os.symlink(os.path.join(REPLAY, "fake-slurm-replay"), os.path.join(fakebin, t))
    env = {"HOME": os.path.join(tmp, "home"), "PATH": fakebin, "TZ": "UTC", "LC_ALL": "C",
           "CMAX_REPLAY_DIR": base, "CMAX_DATADIR": os.path.join(SRC, "data")}
    figures = []
    for r in range(RUNS if n < 10000 else 1):
        run = os.path.join(tmp, "run-%d-%d" % (n, r))
        with open(run + ".json", "wb") as f:
            rc, wall, rss, cpu = measured([CMAX, "audit", "--slurm", "--yes", "--json", "--nodes", expr,
                                           "--output-dir", run], env=env, stdout=f)
        if rc != 0:
            sys.exit("fleet-replay: N=%d: audit exited %d" % (n, rc))
        if os.path.exists(os.path.join(base, "unrecorded")):
            sys.exit("fleet-replay: N=%d: unrecorded calls:\n%s" % (n, open(os.path.join(base, "unrecorded")).read()))
        figures.append((wall, rss, cpu))
        last = run + ".json"
    d = json.load(open(last))
    answered = sum(1 for f in d["fleet"] if f["answered"])
    drift = [r for r in d["results"] if "drift" in r["id"]]
    shutil.rmtree(base)
    for r in range(RUNS if n < 10000 else 1):
        shutil.rmtree(os.path.join(tmp, "run-%d-%d" % (n, r)))
        os.unlink(os.path.join(tmp, "run-%d-%d.json" % (n, r)))
    return (median([f[0] for f in figures]), median([f[1] for f in figures]), median([f[2] for f in figures]),
            answered, drifted, drift)


def main():
    for p in (CMAX, FAKECMD):
        if not os.access(p, os.X_OK):
            sys.exit("fleet-replay: %s missing: build first (ninja -C %s)" % (p, BUILD))
    tmp = tempfile.mkdtemp(prefix="cmax-fleet-replay.")
    try:
        good = template(wire_decode_of(tmp, "h100-healthy"))
        bad = template(wire_decode_of(tmp, "misconfig-h100"))
        print("coordinator: cmax audit --slurm --yes --json over N replayed nodes "
              "(%d KB of CMAXNODE lines a node; median of %d runs, 1 at N=10000)" % (len(good) // 1024, RUNS))
        print("%7s %10s %9s %9s %10s %11s %11s  %s" % ("N", "wall ms", "x N=1", "RSS MB", "CPU ms", "ms/node",
                                                      "KB/node", "drift rows"))
        res = {}
        for n in SIZES:
            wall, rss, cpu, answered, drifted, drift = coordinator(tmp, n, good, bad)
            res[n] = (wall, rss)
            base = res[SIZES[0]]
            per = (wall - base[0]) / (n - SIZES[0]) * 1000 if n > SIZES[0] else 0
            kb = (rss - base[1]) / (n - SIZES[0]) * 1024 if n > SIZES[0] else 0
            rows = "%d, %d FAIL/WARN" % (len(drift), sum(1 for r in drift if r["status"] in ("FAIL", "WARN")))
            print("%7d %10.0f %9.1f %9.1f %10.0f %11.3f %11.1f  %s" % (n, wall * 1000, wall / base[0], rss, cpu * 1000,
                                                                   per, kb, rows))
            if answered != n:
                print("        only %d of %d nodes answered" % (answered, n))
            drv = [r for r in drift if r["id"] == "versions.drift-driver"]
            if n >= 100 and drv:
                print("        drift-driver: %s" % drv[0]["summary"][:200])
        if 1000 in res:
            wall, rss = res[1000]
            print("goal at N=1000: wall %.2f s (< %.0f s: %s), max RSS %.0f MB (< %.0f MB: %s)" % (
                wall, GOAL_WALL_S, "met" if wall < GOAL_WALL_S else "NOT met", rss, GOAL_RSS_MB,
                "met" if rss < GOAL_RSS_MB else "NOT met"))
        big = [n for n in SIZES if n >= 1000]
        if len(big) >= 2 and 100 in res:
            a, b = big[0], big[-1]
            m1 = (res[a][0] - res[100][0]) / (a - 100)
            m2 = (res[b][0] - res[a][0]) / (b - a)
            print("linear: marginal cost %.3f ms/node (100->%d), %.3f ms/node (%d->%d): ratio %.2f (%s)" % (
                m1 * 1000, a, m2 * 1000, a, b, m2 / m1 if m1 > 0 else 0,
                "linear" if m1 > 0 and m2 / m1 <= 1.5 else "NOT linear"))
        print("\nnode-collect CPU (user+sys, the replayed tools it runs included), median of %d:" % RUNS)
        for host in sorted(os.listdir(HOSTS)):
            if not os.path.isdir(os.path.join(HOSTS, host, "root")):
                continue
            runs = [node_collect(host, tmp) for _ in range(RUNS)]
            cpu = median([r[3] for r in runs]) * 1000
            wall = median([r[1] for r in runs]) * 1000
            print("  %-16s %6.1f ms CPU %7.1f ms wall  %s" % (host, cpu, wall,
                                                             "ok" if cpu < GOAL_NODE_CPU_MS else "over the %d ms goal" % GOAL_NODE_CPU_MS))
    finally:
        shutil.rmtree(tmp)


def wire_decode_of(tmp, host):
    out = os.path.join(tmp, host + ".wire")
    rc = node_collect(host, tmp, out)[0]
    if rc != 0:
        sys.exit("fleet-replay: node-collect on %s exited %d" % (host, rc))
    return wire_decode(out)


if __name__ == "__main__":
    main()
