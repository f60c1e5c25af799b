#!/usr/bin/env python3
"""Writes the nccl-tests recordings of the method's network figures into
this directory (see README.md). Run it again after changing a model; the
outputs are committed, this script documents how they were made.

Every line follows the printf / JSON writer calls of NVIDIA/nccl-tests at
the tag in the file name (v2.14.1 b4300cc7: src/common.cu; v2.19.6 a0b82b2:
src/util.cu writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble,
writeBenchmarkLineBody with getFloatStr, writeResultFooter, finalizeFooter,
writeErrors). The printed size is max(sendBytes, expectedBytes) after each
collective's GetCollByteCount: all_gather and alltoall round count/nranks
down to 16 bytes, so with 32 or 64 ranks the first sizes print as 0. busbw
= algbw x the factor of src/<collective>.cu GetBw.

The curves are a latency + bandwidth model, time(S) = L(S) + S*F/peak,
which rises like a logistic curve in log(size); `peak` is solved so that
busbw at 16 GiB is the method's figure exactly, and L(S) grows from l0 to
l0 + l1 up to 64 KiB (small-message latency)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GiB = 1 << 30
SIZES = [8 << k for k in range(32)]  # 8 B .. 16 GiB, -f 2


def factor(coll, n):
    if coll == "all_reduce":
        return 2.0 * (n - 1) / n
    if coll in ("all_gather", "reduce_scatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def printed(coll, s, n):
    """(size column, count column) for requested size s, float32"""
    count = s // 4
    if coll in ("all_gather", "alltoall"):
        base = (count // n) & ~3
        return base * n * 4, base
    if coll == "reduce_scatter":
        base = (count // n) & ~3
        return base * n * 4, base
    return count * 4, count


def jitter(i, seed):
    # deterministic, up to 0.3 % slower: measured times are never perfectly
    # smooth; never faster, and none at 16 GiB and 64 KiB, so the method's
    # figures are the peak and the latency, printed exactly
    if i in (13, len(SIZES) - 1):
        return 1.0
    x = (i * 7919 + seed * 104729) % 1000
    return 1.0 + x / 1000.0 * 0.003


class Model:
    def __init__(self, coll, n, final_busbw, l0, l1, dips=None, inplace_slow=0.004, seed=1):
        self.coll, self.n, self.F = coll, n, factor(coll, n)
        self.l0, self.l1, self.dips, self.inp, self.seed = l0, l1, dips or {}, inplace_slow, seed
        S = 16 * GiB
        t = S * self.F / (final_busbw * 1e3)  # us
        self.peak = S * self.F / ((t - self.L(S)) * 1e3)

    def L(self, S):
        return self.l0 + self.l1 * min(S / 65536.0, 1.0) ** 0.8

    def point(self, i, s):
        S, count = printed(self.coll, s, self.n)
        if S == 0:
            t = (0.11 + 0.02 * (i % 3)) * jitter(i, self.seed)  # NCCL returns at once for count 0
            return S, count, t, 0.0, 0.0
        t = (self.L(S) + S * self.F / (self.peak * 1e3)) * jitter(i, self.seed)
        if s in self.dips:
            t /= self.dips[s]
        alg = S / (t * 1e3)
        return S, count, t, alg, alg * self.F


def fstr(v, width):
    """getFloatStr of nccl-tests 2.17.3+"""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, v)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, v)


def t214(v):
    """2.14.1 time column"""
    if v >= 10000.0:
        return "%7.0f" % v
    if v >= 100.0:
        return "%7.1f" % v
    return "%7.2f" % v


def rank_lines(hosts, per, devname, buses, pid0):
    out = []
    r = 0
    for h in hosts:
        for d in range(per):
            out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n"
                       % (r, 0, pid0 + r, h, d, buses[d], devname))
            r += 1
    return out


def redop(coll):
    return "sum" if coll in ("all_reduce", "reduce_scatter", "reduce") else "none"


def text_219(m, hosts, per, devname, buses, stop_before=None, warmup=1, pid0=52000, nccl=22703, version="2.19.6",
             check=True):
    coll = m.coll
    o = ["# nccl-tests version %s nccl-headers=%d nccl-library=%d\n" % (version, nccl, nccl),
         "# Collective test starting: %s_perf\n" % coll,
         "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: %d iters: 20 "
         "agg iters: 1 validation: %d graph: 0 unalign: 0\n" % (warmup, 1 if check else 0),
         "#\n", "# Using devices\n"]
    o += rank_lines(hosts, per, devname, buses, pid0)
    o.append("#\n")
    o.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n" % ("", "", "", "", ""))
    o.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
             % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                "time", "algbw", "busbw", "#wrong", 0, ""))
    o.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
             % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, ""))
    tot, k = 0.0, 0
    for i, s in enumerate(SIZES):
        if stop_before is not None and s >= stop_before:
            return "".join(o)
        S, count, t, alg, bus = m.point(i, s)
        line = "%12li  %12li  %8s  %6s  %6s" % (S, count, "float", redop(coll), "%6i" % -1)
        for place in (0, 1):
            tt = t * (1 + m.inp * place)
            a = alg / (1 + m.inp * place)
            b = bus / (1 + m.inp * place)
            if check:
                line += "  %7s  %6s  %6s  %6g" % (fstr(tt, 7), fstr(a, 6), fstr(b, 6), 0)
            else:
                line += "  %7s  %6s  %6s    N/A" % (fstr(tt, 7), fstr(a, 6), fstr(b, 6))
            tot += b
            k += 1
        o.append(line + "\n")
    o.append("# %-20s : %d %s\n" % ("Out of bounds values", 0, "OK"))
    o.append("# %-20s : %g %s\n" % ("Avg bus bandwidth", round(tot / k, 4), ""))
    o.append("#\n")
    o.append("# Collective test concluded: %s_perf\n" % coll)
    o.append("#\n")
    o.append("\n")
    return "".join(o)


def text_214(m, hosts, per, devname, buses, stop_before, pid0=41000):
    o = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 "
         "agg iters: 1 validation: 1 graph: 0\n", "#\n", "# Using devices\n"]
    o += rank_lines(hosts, per, devname, buses, pid0)
    o.append("#\n")
    o.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n" % ("", "", "", "", ""))
    o.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n"
             % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"))
    o.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n"
             % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
    for i, s in enumerate(SIZES):
        if s >= stop_before:
            break
        S, count, t, alg, bus = m.point(i, s)
        line = "%12li  %12li  %8s  %6s  %6s" % (S, count, "float", redop(m.coll), "%6i" % -1)
        for place in (0, 1):
            f = 1 + m.inp * place
            line += "  %7s  %6.2f  %6.2f  %5g" % (t214(t * f), alg / f, bus / f, 0)
        o.append(line + "\n")
    return "".join(o)


def jstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("/", "\\/") + '"'


def json_219(m, hosts, per, devname, buses, stop_before, jpath, warmup, pid0=52000, nccl=22703):
    """-J FILE.json as 2.19.6 writes it, the run killed before `stop_before`:
    stdio flushes its buffer in 4096-byte blocks, so the file ends at the last
    full block, mid-token."""
    args = ["/opt/nccl-tests/build/%s_perf" % m.coll, "-b", "8", "-e", "16G", "-f", "2", "-g", "1", "-w", str(warmup),
            "-J", jpath]
    env = ["SLURM_JOB_ID=4242", "SLURM_PROCID=0", "SLURM_LOCALID=0",
           "PATH=/opt/nccl-tests/build:/usr/local/cuda/bin:/usr/bin:/bin", "HOME=/home/acme"]
    o = ['{"version":3,"start_time":"2026-07-12 08:41:17","args":[' + ",".join(jstr(a) for a in args) + '],'
         '"env":[' + ",".join(jstr(e) for e in env) + '],"nccl_version":%d,' % nccl,
         '"config":{"nthreads":1,"ngpus":1,"minimum_bytes":8,"maximum_bytes":17179869184,"step_factor":2,'
         '"warmup_iters":%d,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,'
         '"blocking_collectives":"false","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false",'
         '"devices":[' % warmup]
    devs, r = [], 0
    for h in hosts:
        for d in range(per):
            devs.append('{"rank":%d,"group":0,"pid":%d,"hostname":%s,"device":%d,"device_hex":%s,"device_info":%s}'
                        % (r, pid0 + r, jstr(h), d, jstr(buses[d]), jstr(devname)))
            r += 1
    o.append(",".join(devs) + ']},"results":[')
    res = []
    for i, s in enumerate(SIZES):
        if s >= stop_before:
            break
        S, count, t, alg, bus = m.point(i, s)
        pl = []
        for place in (0, 1):
            f = 1 + m.inp * place
            pl.append('{"time":%f,"alg_bw":%f,"bus_bw":%f,"nwrong":%f}' % (t * f, alg / f, bus / f, 0.0))
        res.append('{"size":%d,"count":%d,"type":"float","redop":%s,"root":"    -1","out_of_place":%s,"in_place":%s,'
                   '"actual_iterations":20,"experiment_name":""}' % (S, count, jstr(redop(m.coll)), pl[0], pl[1]))
    o.append(",".join(res))
    # the row being written when it hung: its preamble only
    S, count = printed(m.coll, stop_before, m.n)
    o.append(',{"size":%d,"count":%d,"type":"float","redop":%s,"root":"    -1"' % (S, count, jstr(redop(m.coll))))
    doc = "".join(o)
    return doc[: (len(doc) // 4096) * 4096]


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


H100 = "NVIDIA H100 80GB HBM3"
H100_BUS = ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"]
B200 = "NVIDIA B200"
B200_BUS = ["0000:%02x:00" % b for b in (0x12, 0x2a, 0x42, 0x5a, 0x92, 0xaa, 0xc2, 0xda)]
GB300 = "NVIDIA GB300"
GB300_BUS = ["0008:04:00", "0009:04:00", "0018:04:00", "0019:04:00"]


def hosts(prefix, n):
    return ["%s%02d" % (prefix, i + 1) for i in range(n)]


def main():
    # the method's healthy reference: 4 x 8 B200 over EFA, 59.44 GB/s at 16 GiB;
    # with InfiniBand-like small-message latency (47.5 us at 64 KiB) ...
    m = Model("alltoall", 32, 59.44, 38.0, 8.4, seed=3)
    write("nccl-2.19.6-alltoall-4x8-b200-efa.txt", text_219(m, hosts("p6b-", 4), 8, B200, B200_BUS, pid0=61200))
    # ... and the method's own EFA latency, 85.26 us at 64 KiB (small messages 35-40% slower)
    m = Model("alltoall", 32, 59.44, 52.5, 31.69, seed=3)
    write("nccl-2.19.6-alltoall-4x8-b200-efa-85us.txt", text_219(m, hosts("p6b-", 4), 8, B200, B200_BUS, pid0=61200))
    # 16 GB300 trays (NVLink off: scale-out only), one 800G CX-8 per GPU
    m = Model("alltoall", 64, 99.5, 33.0, 8.0, seed=5)
    write("nccl-2.19.6-alltoall-16x4-gb300-plugin.txt", text_219(m, hosts("gb-r1-t", 16), 4, GB300, GB300_BUS, pid0=20400, nccl=22805))
    m = Model("alltoall", 64, 95.3, 35.0, 9.0, seed=6)
    write("nccl-2.19.6-alltoall-16x4-gb300-typical.txt", text_219(m, hosts("gb-r1-t", 16), 4, GB300, GB300_BUS, pid0=20400, nccl=22805))
    # without the plugin: a jagged curve (busbw falls back at several sizes), its end near 0.85 of the bound
    dips = {2 << 20: 0.70, 16 << 20: 0.64, 32 << 20: 0.86, 128 << 20: 0.69, 512 << 20: 0.77, 2 * GiB: 0.73, 8 * GiB: 0.83}
    m = Model("alltoall", 64, 88.7, 36.0, 9.5, dips=dips, seed=7)
    write("nccl-2.19.6-alltoall-16x4-gb300-noplugin-jagged.txt",
          text_219(m, hosts("gb-r1-t", 16), 4, GB300, GB300_BUS, pid0=20400, nccl=22805))
    # NVL72 with multi-node NVLink on: 16 trays of one rack, all-reduce over NVLink
    m = Model("all_reduce", 64, 742.6, 24.0, 6.0, seed=8)
    write("nccl-2.19.6-allreduce-16x4-gb300-mnnvl.txt", text_219(m, hosts("gb-r1-t", 16), 4, GB300, GB300_BUS, pid0=20400, nccl=22805))
    # hangs at 32 KiB ("all-gather and all-to-all hanging at 32 KiB"): the sizes up to 16 KiB
    # printed, then nothing until the kill. 2.14.1 warms up only at the largest and the
    # smallest size, so its rows appear size by size; 2.19.6 warms up every size first
    # unless -w 0.
    m = Model("all_gather", 32, 360.0, 30.0, 6.0, seed=9)
    write("nccl-2.14.1-allgather-4x8-hang-32k.txt", text_214(m, hosts("gpu-a", 4), 8, H100, H100_BUS, 32768))
    m = Model("alltoall", 32, 87.0, 36.0, 8.0, seed=10)
    write("nccl-2.19.6-alltoall-4x8-w0-hang-32k.txt",
          text_219(m, hosts("gpu-a", 4), 8, H100, H100_BUS, stop_before=32768, warmup=0, nccl=22803))
    write("nccl-2.19.6-alltoall-4x8-w0-hang-32k.json",
          json_219(m, hosts("gpu-a", 4), 8, H100, H100_BUS, 32768, "/scratch/acme/cmax-bench-net.Qm3v7A/alltoall-n32.json",
                   0, nccl=22803))
    # a degraded 2 x 8 H100 all-to-all with -c 0 (correctness unchecked): 64.7 GB/s of the
    # 8 x 400G rails' 50 x 15/8 = 93.75 GB/s bound (0.69)
    m2 = Model("alltoall", 16, 64.7, 55.0, 6.0, seed=2)
    write("nccl-2.19.3-alltoall-c0.txt", text_219(m2, hosts("gpu-a", 2), 8, H100, H100_BUS, warmup=1, pid0=41000,
                                                   nccl=22005, version="2.19.3", check=False))
    # 2.19.6 without -w 0: NCCL up, then the warm-up of every size hangs before any row
    write("nccl-2.19.6-alltoall-4x8-hang-warmup.txt",
          text_219(m, hosts("gpu-a", 4), 8, H100, H100_BUS, stop_before=8, warmup=1, nccl=22803))


if __name__ == "__main__":
    sys.exit(main())
