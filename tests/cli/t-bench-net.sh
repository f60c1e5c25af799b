#!/usr/bin/env bash
# cmax bench net: nccl-tests and perftest on recorded outputs (tests/unit/net/)
# replayed by tests/fakecmd through a fake srun inside a fake allocation, the
# GPU-NIC affinity from fixture sysfs trees (h100-healthy: 8 GPUs, 8 x 400G
# ConnectX-7, two of each per PCIe switch; tests/unit/net/sysroot-b200-efa;
# sysroot-gb300-tray). The assertions are the method's figures: the 4 x 8 B200
# all-to-all over EFA at 59.44 GB/s is "about 92% of scale-out line rate"
# (50 x 31/24 = 64.6 GB/s) and strong; 85 us at 64 KiB is worse than
# InfiniBand's under 50 us; 16 GB300 trays at 99.5 and 95.3 GB/s are full
# performance, the jagged curve without the plugin is unsatisfactory; a
# collective hanging at 32 KiB is a fabric failure; 391 Gb/s on a 400G rail is
# healthy. Also: a clean SKIP without nccl-tests; a run that printed nothing
# before it hung is an ERROR; the front-end probe between network namespaces on
# this machine (127.0.0.1 when namespaces are refused).
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
NET=$SRCDIR/tests/unit/net
ROOT=$SRCDIR/tests/fixtures/hosts/h100-healthy/root

# rec DIR TOOL N STDOUT_FILE EXIT ARGS... : one fakecmd recording
rec() {
	local d=$1/cmd/$2/$3 out=$4 ex=$5; shift 5
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/argv"
	[ -n "$out" ] && cp "$out" "$d/stdout"
	echo "$ex" >"$d/exit"
}
fakebin() { "$SRCDIR/tests/fakecmd/mkbin.sh" "$1/cmd" "$BUILD/fakecmd" "$1/bin" >/dev/null; }
runfake() { # DIR args... (inside a fake 4-node allocation of gpu-a[01-04]; SYSROOT= another tree)
	local d=$1; shift
	: >"$d/fake.log"
	env -i HOME="$TMP" PATH="$d/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_FAKE_DIR="$d/cmd" \
		CMAX_FAKE_LOG="$d/fake.log" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 \
		SLURM_JOB_NODELIST='gpu-a[01-04]' \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" bench net --sysroot "${SYSROOT:-$ROOT}" "$@"
}
sweep='-b 8 -e 16G -f 2 -g 1'
nccl_args() { # NODES BIN [RANKS_PER_NODE]
	local g=${3:-8}
	echo --nodes=$1 --ntasks=$(($1 * g)) --ntasks-per-node=$g $2 $sweep
}
# one_run NAME BIN NODES G FIXTURE [EXTRA NCCL ARGS]: a directory with one srun recording
one_run() {
	local d=$TMP/$1 bin=$2 n=$3 g=$4 f=$5; shift 5
	rec "$d" srun 1 "$NET/$f" 0 $(nccl_args $n $bin $g) "$@"
	rec "$d" $bin 1 "" 0 '*'
	fakebin "$d"
}
docs=()
# pycheck NAME CODE ARGS...: a Python assertion on the documents, run later in
# one interpreter (pyrun) with sys.argv = [NAME, ARGS...]; one start instead of
# one per check keeps the script fast on a loaded machine
PC=$TMP/pycheck; mkdir -p "$PC"; _pc=0
pycheck() {
	_pc=$((_pc + 1))
	printf '%s' "$1" >"$PC/$_pc.name"
	printf '%s' "$2" >"$PC/$_pc.py"
	shift 2
	printf '%s\0' "$@" >"$PC/$_pc.args"
}
pyrun() {
	python3 - "$PC" >"$PC/out" 2>&1 <<'PY'
import glob, os, sys, traceback
d = sys.argv[1]
for n in sorted(int(os.path.basename(f)[:-3]) for f in glob.glob(d + "/*.py")):
    name = open("%s/%d.name" % (d, n)).read()
    code = open("%s/%d.py" % (d, n)).read()
    args = [a for a in open("%s/%d.args" % (d, n), "rb").read().decode().split("\0") if a]
    sys.argv = [name] + args
    try:
        exec(compile(code, name, "exec"), {"__name__": "__check__"})
        print("ok\t%s" % name)
    except SystemExit as e:
        print("ok\t%s" % name if not e.code else "not ok\t%s\texit %s" % (name, e.code))
    except BaseException:
        print("not ok\t%s\t%s" % (name, traceback.format_exc(limit=2).replace("\n", " | ")[-1500:]))
PY
	while IFS=$'\t' read -r st name why; do
		case $st in
		ok) ok "$name" ;;
		"not ok") not_ok "$name"; echo "$why" | diag ;;
		*) printf '%s\t%s\t%s\n' "$st" "$name" "$why" | diag ;;
		esac
	done <"$PC/out"
}

# --- no nccl-tests at all: a clean SKIP, nothing started, no --yes needed
E=$TMP/empty; mkdir -p "$E/cmd"; fakebin "$E"
runfake "$E" --json >"$TMP/none.json" 2>"$TMP/none.err" </dev/null
check "no nccl-tests: exit 0" [ $? -eq 0 ]
diag <"$TMP/none.err"
pycheck "no nccl-tests: one SKIP row with the reason, valid document" '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]
assert len(r)==1 and r[0]["status"]=="SKIP" and "no nccl-tests on PATH" in r[0]["summary"], r
assert r[0]["profile"]=="networking" and d["benchmark"]=="net"' "$TMP/none.json"
docs+=("$TMP/none.json")

# --- HGX all-reduce at 1, 2 and 4 nodes (H100, 8 x 400G rails): across nodes the
# node's rails bound it, 8 x 400 Gb/s = 400 GB/s; one node is one NVLink domain
# (450 GB/s per GPU and direction, gpu-specs.json)
A=$TMP/a
i=0
for n in 1 2 4; do
	i=$((i + 1))
	rec "$A" srun $i "$NET/nccl-2.14.1-allreduce-${n}x8.txt" 0 $(nccl_args $n all_reduce_perf)
done
rec "$A" all_reduce_perf 1 "" 0 '*'
fakebin "$A"
runfake "$A" --dry-run --scaling >"$TMP/plan" 2>&1
check "dry-run lists the three srun commands" [ "$(grep -c '^  srun --nodes=' "$TMP/plan")" -eq 3 ]
check "dry-run says where the rail rate comes from" grep -q "rail rate from the GPU-NIC affinity" "$TMP/plan"
runfake "$A" --scaling </dev/null >/dev/null 2>"$TMP/noyes"
check "without --yes and no terminal: exit 64" [ $? -eq 64 ]
runfake "$A" --yes --json --scaling >"$TMP/a.json" 2>"$TMP/a.err"
check "healthy run: exit 0" [ $? -eq 0 ]
diag <"$TMP/a.err"
check "healthy run: no unrecorded command" [ ! -s "$A/fake.log" ]
pycheck "HGX all-reduce: 371.84 / (8 x 50) = 0.93 across 2 nodes, 450 GB/s NVLink in one node, scaling PASS" '
import json,sys; d=json.load(open(sys.argv[1])); r={x["id"]:x for x in d["results"]}
one=r["bench.net-nccl-all-reduce-n8"]; two=r["bench.net-nccl-all-reduce-n16"]; four=r["bench.net-nccl-all-reduce-n32"]
o=two["observed"]
assert two["status"]=="PASS" and two["mode"]=="full", two["summary"]
assert abs(o["busbw_peak_gb_s"]-371.84)<0.01 and o["busbw_peak_at_bytes"]==17179869184, o
assert o["bound"]=="nic-rails" and o["line_rate_gb_s"]==400 and o["rail_gbit_s"]==400, o
assert o["ranks"]==16 and o["ranks_per_node"]==8 and o["nodes"]==2 and o["cross_node_fraction"]==0.125, o
assert abs(o["busbw_line_ratio"]-371.84/400)<0.001 and o["affinity"].startswith("pci"), o
assert abs(o["latency_64k_us"]-38.33)<0.01 and o["wrong"]==0 and o["jagged_dips"]==0, o
assert abs(four["observed"]["busbw_line_ratio"]-360.80/400)<0.001 and four["status"]=="PASS", four["summary"]
p=one["observed"]
assert p["bound"]=="nvlink" and p["line_rate_gb_s"]==450 and p["gpu_model"]=="H100" and one["status"]=="PASS", p
assert abs(p["busbw_line_ratio"]-467.90/450)<0.001 and p["cross_node_fraction"]==0, p
s=r["bench.net-nccl-all-reduce-scaling"]
assert s["status"]=="PASS" and len(s["observed"]["points"])==3 and 0<s["observed"]["worst_drop_pct"]<10, s
aff=d["parameters"]["affinity"]
assert aff["source"]=="pci" and len(aff["rails"])==8 and aff["rail_gbit_s"]==400, aff
assert all(g["nearest_nics"]==2 for g in aff["gpus"]), aff["gpus"]
assert two["reproduce"].startswith("srun --nodes=2 --ntasks=16"), two["reproduce"]' "$TMP/a.json"
docs+=("$TMP/a.json")
# no GPU in this sysfs (a login node): the rail rate falls back to the active
# ports / ranks per node, and the row says so; --line-rate and --rail-rate override
NG=$TMP/nogpu
for i in 0 1 2 3 4 5 6 7; do
	mkdir -p "$NG/sys/class/infiniband/mlx5_$i/ports/1"
	echo "400 Gb/sec (4X NDR)" >"$NG/sys/class/infiniband/mlx5_$i/ports/1/rate"
	echo "4: ACTIVE" >"$NG/sys/class/infiniband/mlx5_$i/ports/1/state"
done
SYSROOT=$NG runfake "$A" --yes --json --nodes 2 >"$TMP/fb.json" 2>/dev/null
runfake "$A" --yes --json --nodes 2 --line-rate 1600 >"$TMP/lr.json" 2>/dev/null
runfake "$A" --yes --json --nodes 2 --rail-rate 800 >"$TMP/rr.json" 2>/dev/null
pycheck "no affinity: fallback 3200 / 8 = 400 Gb/s per GPU, named; --line-rate / g; --rail-rate" '
import json,sys
o=json.load(open(sys.argv[1]))["results"][0]["observed"]
assert o["rail_gbit_s"]==400 and o["affinity"].startswith("fallback: active ports / ranks per node"), o
assert "no NVIDIA or AMD GPU" in o["affinity"] and o["line_rate_gb_s"]==400, o
o=json.load(open(sys.argv[2]))["results"][0]["observed"]
assert o["rail_gbit_s"]==200 and o["line_rate_gb_s"]==200 and o["affinity"]=="--line-rate / ranks per node", o
x=json.load(open(sys.argv[3]))["results"][0]; o=x["observed"]
assert o["rail_gbit_s"]==800 and o["line_rate_gb_s"]==800 and o["affinity"]=="--rail-rate", o
assert abs(o["busbw_line_ratio"]-371.84/800)<0.001 and x["status"]=="FAIL", x["summary"]' "$TMP/fb.json" "$TMP/lr.json" "$TMP/rr.json"
docs+=("$TMP/fb.json" "$TMP/lr.json" "$TMP/rr.json")
bad=0
for a in "--platform dgx" "--nvlink maybe" "--rail-rate 0" "--rail-rate 400 --line-rate 3200"; do
	runfake "$A" --yes --json $a >/dev/null 2>"$TMP/bad.err"
	[ $? -eq 64 ] && [ -s "$TMP/bad.err" ] || { bad=1; echo "$a" | diag; }
done
check "bad --platform, --nvlink, --rail-rate values: exit 64 with a message" [ $bad -eq 0 ]

# --- the method's healthy reference: 4 x 8 B200 over EFA, one 400 Gb/s NIC per GPU
export SYSROOT=$NET/sysroot-b200-efa/root
one_run efa alltoall_perf 4 8 nccl-2.19.6-alltoall-4x8-b200-efa.txt
runfake "$TMP/efa" --yes --json >"$TMP/efa.json" 2>"$TMP/efa.err"
check "B200 EFA all-to-all: exit 0, no unrecorded command" [ $? -eq 0 -a ! -s "$TMP/efa/fake.log" ]
diag <"$TMP/efa.err"
pycheck "59.44 GB/s over 4 x 8 is about 92% of 50 x 31/24 = 64.6 GB/s: PASS" '
import json,sys; d=json.load(open(sys.argv[1])); x=[r for r in d["results"] if r["id"]=="bench.net-nccl-alltoall-n32"][0]
o=x["observed"]
assert x["status"]=="PASS" and x["mode"]=="full", x["summary"]
assert abs(o["busbw_peak_gb_s"]-59.44)<0.005, o
assert o["bound"]=="nic-rails" and abs(o["line_rate_gb_s"]-50*31/24)<0.01 and o["rail_gbit_s"]==400, o
assert abs(o["busbw_line_ratio"]-0.92)<0.005, o["busbw_line_ratio"]
assert o["ranks"]==32 and o["ranks_per_node"]==8 and o["nodes"]==4 and o["cross_node_fraction"]==0.75, o
assert o["latency_64k_us"]<50 and o["gpu_model"]=="B200" and o["platform"]=="hgx", o
aff=d["parameters"]["affinity"]
assert aff["source"]=="pci" and len(aff["rails"])==8 and all(g["nearest_nics"]==1 for g in aff["gpus"]), aff' "$TMP/efa.json"
one_run efa85 alltoall_perf 4 8 nccl-2.19.6-alltoall-4x8-b200-efa-85us.txt
runfake "$TMP/efa85" --yes --json >"$TMP/efa85.json" 2>/dev/null
pycheck "the same at 85.26 us for 64 KiB (InfiniBand: under 50 us): at least a WARN, same 0.92" '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"] in ("WARN","FAIL") and "64 KiB" in x["summary"], x["summary"]
assert abs(o["latency_64k_us"]-85.26)<0.005 and abs(o["busbw_line_ratio"]-0.92)<0.005, o' "$TMP/efa85.json"
docs+=("$TMP/efa.json" "$TMP/efa85.json")

# --- 16 GB300 trays, NVLink off (scale-out only), one 800G CX-8 per GPU
export SYSROOT=$NET/sysroot-gb300-tray/root
for k in plugin typical noplugin-jagged; do
	one_run gb-$k alltoall_perf 16 4 nccl-2.19.6-alltoall-16x4-gb300-$k.txt
	runfake "$TMP/gb-$k" --yes --json --nodes 16 --gpus-per-node 4 --nvlink off >"$TMP/gb-$k.json" 2>"$TMP/gb-$k.err"
	check "GB300 $k: exit 0, no unrecorded command" [ $? -eq 0 -a ! -s "$TMP/gb-$k/fake.log" ]
	diag <"$TMP/gb-$k.err"
	docs+=("$TMP/gb-$k.json")
done
pycheck "GB300 all-to-all: 99.5 and 95.3 GB/s of 100 x 63/60 = 105 GB/s are full performance (PASS)" '
import json,sys
for f,want in ((sys.argv[1],99.5),(sys.argv[2],95.3)):
    d=json.load(open(f)); x=d["results"][0]; o=x["observed"]
    assert x["id"]=="bench.net-nccl-alltoall-n64" and x["status"]=="PASS", (f, x["summary"])
    assert abs(o["busbw_peak_gb_s"]-want)<0.005 and abs(o["line_rate_gb_s"]-105)<0.01, o
    assert o["platform"]=="nvl72" and o["nvlink"]=="off" and o["bound"]=="nic-rails" and o["rail_gbit_s"]==800, o
    assert o["ranks_per_node"]==4 and o["nodes"]==16 and abs(o["busbw_line_ratio"]-want/105)<0.001, o
    assert abs(o["latency_64k_limit_scale"]-63/31)<0.001 and o["latency_64k_us"]<50*63/31, o
    assert x["reproduce"].startswith("NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0 srun --nodes=16 --ntasks=64"), x["reproduce"]
    p=d["parameters"]; aff=p["affinity"]
    assert p["nvlink"]=="off" and p["nvlink_env"]=="NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0", p
    assert aff["rails"]==["mlx5_0","mlx5_1","mlx5_2","mlx5_3"] and aff["not_rails"]==["mlx5_4"], aff' \
	"$TMP/gb-plugin.json" "$TMP/gb-typical.json"
pycheck "GB300 without the plugin: a jagged curve (not a logistic rise) is a WARN" '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"]=="WARN" and "jagged" in x["summary"], x["summary"]
assert o["jagged_dips"]>=3 and o["busbw_line_ratio"]>=0.8, o' "$TMP/gb-noplugin-jagged.json"

# --- NVL72 with multi-node NVLink on (the default there): 16 trays of one rack
# are one NVLink domain, so NVLink (900 GB/s per GPU and direction) bounds it
one_run mnnvl all_reduce_perf 16 4 nccl-2.19.6-allreduce-16x4-gb300-mnnvl.txt
runfake "$TMP/mnnvl" --yes --json --nodes 16 --gpus-per-node 4 >"$TMP/mnnvl.json" 2>/dev/null
pycheck "NVL72, NVLink on: all-reduce against NVLink 900 GB/s" '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"]=="PASS" and o["bound"]=="nvlink" and o["nvlink"]=="on" and o["line_rate_gb_s"]==900, o
assert abs(o["busbw_line_ratio"]-742.6/900)<0.001 and o["cross_node_fraction"]==0, o
assert not x["reproduce"].startswith("NCCL_"), x["reproduce"]' "$TMP/mnnvl.json"
docs+=("$TMP/mnnvl.json")
unset SYSROOT

# --- a sweep short of the method's 16 GiB is a quick row
Q=$TMP/q
awk '/^#/ || $1 <= 1073741824' "$NET/nccl-2.14.1-allreduce-2x8.txt" >"$TMP/to-1g.txt"
rec "$Q" srun 1 "$TMP/to-1g.txt" 0 --nodes=2 --ntasks=16 --ntasks-per-node=8 all_reduce_perf -b 8 -e 1G -f 2 -g 1
rec "$Q" all_reduce_perf 1 "" 0 '*'
fakebin "$Q"
runfake "$Q" --yes --json --nodes 2 --max-bytes 1G >"$TMP/q.json" 2>/dev/null
pycheck "a sweep to 1 GiB: mode quick" '
import json,sys; d=json.load(open(sys.argv[1])); x=d["results"][0]
assert x["mode"]=="quick" and d["parameters"]["sweep_mode"]=="quick" and x["status"]=="PASS", x' "$TMP/q.json"
docs+=("$TMP/q.json")

# --- hangs at 32 KiB ("all-gather and all-to-all hanging at 32 KiB: a fabric
# failure"): the sizes up to 16 KiB printed, then nothing; killed at --run-timeout
one_run hag all_gather_perf 4 8 nccl-2.14.1-allgather-4x8-hang-32k.txt
echo after >"$TMP/hag/cmd/srun/1/hang"
one_run hta alltoall_perf 4 8 nccl-2.19.6-alltoall-4x8-w0-hang-32k.txt -w 0
echo after >"$TMP/hta/cmd/srun/1/hang"
t0=$(date +%s)
runfake "$TMP/hag" --yes --json --run-timeout 1 >"$TMP/hag.json" 2>"$TMP/hag.err"
check "hung all-gather: exit 0 (a FAIL row is a result)" [ $? -eq 0 ]
runfake "$TMP/hta" --yes --json --run-timeout 1 --nccl-args '-w 0' >"$TMP/hta.json" 2>"$TMP/hta.err"
check "hung collectives: no unrecorded command, each killed at the timeout" \
	[ ! -s "$TMP/hag/fake.log" -a ! -s "$TMP/hta/fake.log" -a $(( $(date +%s) - t0 )) -lt 15 ]
diag <"$TMP/hta.err"
pycheck "all-gather and all-to-all hanging at 32 KiB: FAIL with the last size completed and the size it hung at" '
import json,sys
for f in sys.argv[1:]:
    x=json.load(open(f))["results"][0]; o=x["observed"]
    assert x["status"]=="FAIL" and "HUNG at 32 KiB" in x["summary"] and "16 KiB" in x["summary"], (f, x["summary"])
    assert o["hung_at_bytes"]==32768 and o["last_completed_bytes"]==16384 and o["hung"], o
    assert o["nodes"]==4 and o["ranks"]==32 and o["ranks_per_node"]==8 and len(o["curve_size_time_us_busbw_oop_inp"])==12, o
    assert "busbw_line_ratio" not in o and x["remediation"] and x["mode"]=="full", o' "$TMP/hag.json" "$TMP/hta.json"
docs+=("$TMP/hag.json" "$TMP/hta.json")
W=$TMP/w
one_run w alltoall_perf 4 8 nccl-2.19.6-alltoall-4x8-hang-warmup.txt
echo after >"$W/cmd/srun/1/hang"
runfake "$W" --yes --json --run-timeout 1 >"$TMP/w.json" 2>/dev/null
pycheck "a hang in the warm-up (NCCL up, no size printed): FAIL, the size unknown and said so" '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; o=x["observed"]
assert x["status"]=="FAIL" and "before its first size row" in x["summary"] and "-w 0" in x["summary"], x["summary"]
assert o["hung_at_bytes"] is None and o["last_completed_bytes"] is None and o["nccl_initialised"], o' "$TMP/w.json"
docs+=("$TMP/w.json")

# --- a sick fabric: jagged all_reduce with wrong elements, a degraded alltoall
# with -c 0, an aborted all_gather, a broadcast that hung before printing
# anything (ERROR: it never started); perftest on two rails
B=$TMP/b
rec "$B" srun 1 "$NET/nccl-2.14.1-allreduce-jagged-wrong.txt" 0 $(nccl_args 2 all_reduce_perf)
rec "$B" srun 2 "$NET/nccl-2.19.3-alltoall-c0.txt" 0 $(nccl_args 2 alltoall_perf) -c 0
rec "$B" srun 3 "$NET/nccl-2.14.1-allreduce-aborted.txt" 3 $(nccl_args 2 all_gather_perf) -c 0
rec "$B" srun 4 "" 0 $(nccl_args 2 broadcast_perf) -c 0
touch "$B/cmd/srun/4/hang"
pt='-s 65536 --report_gbits -F'
k=4
for t in write read; do
	p=18515
	for dev in mlx5_0 mlx5_3; do
		case $t-$dev in
		write-mlx5_0) out=perftest-4.5-write-bw-gbits-ndr.txt ;;
		write-mlx5_3) out=perftest-3.4-write-bw-mb-hdr.txt ;;
		*) out=perftest-23.04-read-bw-all-roce.txt ;;
		esac
		k=$((k + 1)); rec "$B" srun $k "" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a02 ib_${t}_bw -d $dev -p $p $pt
		k=$((k + 1)); rec "$B" srun $k "$NET/$out" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a01 ib_${t}_bw -d $dev -p $p $pt gpu-a02
		p=$((p + 1))
	done
done
for b in all_reduce_perf alltoall_perf all_gather_perf broadcast_perf ib_write_bw ib_read_bw; do rec "$B" $b 1 "" 0 '*'; done
fakebin "$B"
# all_reduce first without -c 0 (its recording has #wrong), then the rest
runfake "$B" --yes --json --nodes 2 --collectives all_reduce >"$TMP/b1.json" 2>"$TMP/b1.err"
check "sick all_reduce: exit 0 (FAIL rows are results)" [ $? -eq 0 ]
pycheck "sick all_reduce: FAIL for wrong elements, jagged named" '
import json,sys; x=json.load(open(sys.argv[1]))["results"][0]
assert x["id"]=="bench.net-nccl-all-reduce-n16" and x["status"]=="FAIL", x
assert "12 wrong elements" in x["summary"] and "jagged" in x["summary"] and "256 MiB" in x["summary"], x["summary"]
assert x["observed"]["jagged_dips"]==3 and x["remediation"], x["observed"]' "$TMP/b1.json"
t0=$(date +%s)
runfake "$B" --yes --json --nodes 2 --collectives alltoall,all_gather,broadcast --nccl-args '-c 0' \
	--run-timeout 2 --perftest --hca mlx5_0,mlx5_3 >"$TMP/b.json" 2>"$TMP/b.err"
check "sick run: exit 0" [ $? -eq 0 ]
diag <"$TMP/b.err"
check "sick run: no unrecorded command" [ ! -s "$B/fake.log" ]
diag <"$B/fake.log"
pycheck "sick run: alltoall 0.69 of 93.75 GB/s WARN + unchecked, all_gather FAIL, broadcast ERROR, perftest graded" '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
a=r["bench.net-nccl-alltoall-n16"]; o=a["observed"]
assert a["status"]=="WARN" and "unchecked" in a["summary"] and o["wrong"] is None, a["summary"]
assert abs(o["line_rate_gb_s"]-50*15/8)<0.01 and abs(o["busbw_line_ratio"]-64.7/93.75)<0.001, o
g=r["bench.net-nccl-all-gather-n16"]
assert g["status"]=="FAIL" and "Test NCCL failure" in g["summary"], g["summary"]
h=r["bench.net-nccl-broadcast-n16"]
assert h["status"]=="ERROR" and "HUNG" in h["summary"] and "printed nothing" in h["summary"], h["summary"]
w0=r["bench.net-perftest-write-mlx5-0"]; w3=r["bench.net-perftest-write-mlx5-3"]; r0=r["bench.net-perftest-read-mlx5-0"]
assert w0["status"]=="PASS" and abs(w0["observed"]["bw_avg_gbit_s"]-391.87)<0.01 and w0["observed"]["peer"]=="gpu-a02", w0
assert w0["mode"]=="full", w0["mode"]
assert w3["status"]=="FAIL" and abs(w3["observed"]["bw_avg_gbit_s"]-196.93)<0.05, w3
assert r0["observed"]["units"]=="MiB/sec" and r0["status"] in ("PASS","WARN","FAIL"), r0
assert "ib_write_bw -d mlx5_0" in w0["reproduce"], w0["reproduce"]' "$TMP/b.json"
check "sick run took under 15 s (hang killed at --run-timeout)" [ $(( $(date +%s) - t0 )) -lt 15 ]
docs+=("$TMP/b1.json" "$TMP/b.json")

# --- perftest that exchanged its queue pairs and then hung: a FAIL on that rail;
# one that never connected: an ERROR
P=$TMP/p
rec "$P" srun 1 "" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a02 ib_write_bw -d mlx5_0 -p 18515 $pt
rec "$P" srun 2 "$NET/perftest-4.5-write-bw-hang.txt" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a01 ib_write_bw -d mlx5_0 -p 18515 $pt gpu-a02
echo after >"$P/cmd/srun/2/hang"
rec "$P" srun 3 "" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a02 ib_read_bw -d mlx5_0 -p 18515 $pt
rec "$P" srun 4 "" 0 --overlap --nodes=1 --ntasks=1 --nodelist=gpu-a01 ib_read_bw -d mlx5_0 -p 18515 $pt gpu-a02
touch "$P/cmd/srun/4/hang"
for b in ib_write_bw ib_read_bw; do rec "$P" $b 1 "" 0 '*'; done
fakebin "$P"
runfake "$P" --yes --json --no-nccl --perftest --hca mlx5_0 --perftest-timeout 1 >"$TMP/p.json" 2>/dev/null
pycheck "perftest hung after the QP exchange: FAIL; hung before connecting: ERROR" '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
w=r["bench.net-perftest-write-mlx5-0"]; rd=r["bench.net-perftest-read-mlx5-0"]
assert w["status"]=="FAIL" and "HUNG" in w["summary"] and w["observed"]["connected"] and "line_ratio" not in w["observed"], w
assert rd["status"]=="ERROR" and "never began" in rd["summary"], rd' "$TMP/p.json"
docs+=("$TMP/p.json")

# --- front-end network between namespaces
FE_CHECK='
import json,sys; d=json.load(open(sys.argv[1])); n=int(sys.argv[2]); lossy=sys.argv[3]
fe=[x for x in d["results"] if x["id"].startswith("bench.net-frontend-") and x["status"]!="SKIP"]
assert len(fe)==n, [(x["id"],x["summary"]) for x in d["results"]]
for x in fe:
    o=x["observed"]; assert o["ok"], (x["id"], o)
    assert 0 < o["rtt_us"]["p50"] < 50000 and o["tcp"]["gbit_s"] > 0.01 and o["udp"]["sent"] == 100, (x["id"], o)
    assert x["status"] in ("PASS","WARN","FAIL"), x
    if lossy != "-" and x["id"].endswith("-to-" + lossy):
        assert o["udp"]["loss_pct"] > 0 and x["status"] in ("WARN","FAIL"), (x["id"], o)
    elif lossy != "-":
        assert o["udp"]["loss_pct"] <= 5, (x["id"], o)
'
FE_ARGS="--no-nccl --yes --json --frontend-seconds 0.3 --udp-probes 100 --echo-probes 10"
ns=cmaxnet$$
cleanup_ns() { for x in 1 2 3 br; do ip netns del $ns-$x 2>/dev/null; done; }
if ip netns add $ns-br 2>/dev/null; then
	trap 'cleanup_ns; rm -rf "$TMP"' EXIT
	ip -n $ns-br link add br0 type bridge && ip -n $ns-br link set br0 up
	for x in 1 2 3; do
		ip netns add $ns-$x
		ip -n $ns-$x link add eth0 type veth peer name p$x netns $ns-br
		ip -n $ns-br link set p$x master br0 up
		ip -n $ns-$x addr add 10.213.77.$x/24 dev eth0
		ip -n $ns-$x link set eth0 up; ip -n $ns-$x link set lo up
	done
	lossy=-
	if ip netns exec $ns-3 tc qdisc add dev eth0 root netem loss 20% 2>/dev/null; then lossy=$ns-3
	elif ip netns exec $ns-3 tc qdisc add dev eth0 clsact 2>/dev/null &&
		ip netns exec $ns-3 tc filter add dev eth0 egress matchall action gact pass random determ drop 5 2>/dev/null; then
		lossy=$ns-3 # every 5th packet out of ns 3 dropped (no sch_netem here)
	fi
	hosts="$ns-1=10.213.77.1:47391,$ns-2=10.213.77.2:47391,$ns-3=10.213.77.3:47391"
	t0=$(date +%s)
	"$CMAX" bench net $FE_ARGS --frontend "$hosts" --via "ip netns exec {name}" --start-servers >"$TMP/fe.json" 2>"$TMP/fe.err"
	check "namespaces: exit 0" [ $? -eq 0 ]
	diag <"$TMP/fe.err"
	pycheck "namespaces: 6 directed pairs measured, figures plausible" "$FE_CHECK" "$TMP/fe.json" 6 "$lossy"
	check "namespaces: under 20 s" [ $(( $(date +%s) - t0 )) -lt 20 ]
	if [ "$lossy" = - ]; then
		skip "no sch_netem and no gact drop action here: injected-loss assertion not exercised"
	else
		ok "a pair with injected loss reports loss (checked above, via $(ip netns exec $ns-3 tc qdisc show dev eth0 | head -c 40))"
	fi
	check "servers gone after the run" sh -c "! ip netns pids $ns-1 | grep -q ."
	cleanup_ns
else
	diag <<<"ip netns add refused here: front-end probe on 127.0.0.1 pairs instead"
	"$CMAX" bench net --serve 127.0.0.1:47393 --serve-time 20 2>/dev/null & s1=$!
	"$CMAX" bench net --serve 127.0.0.1:47394 --serve-time 20 2>/dev/null & s2=$!
	sleep 0.3
	"$CMAX" bench net $FE_ARGS --frontend "a=127.0.0.1:47393,b=127.0.0.1:47394" >"$TMP/fe.json" 2>"$TMP/fe.err"
	check "loopback: exit 0" [ $? -eq 0 ]
	pycheck "loopback: 2 pairs from this host measured" "$FE_CHECK" "$TMP/fe.json" 2 -
	kill $s1 $s2 2>/dev/null; wait $s1 $s2 2>/dev/null
	skip "no network namespaces: injected-loss assertion not exercised"
fi

# an unreachable server is a FAIL with the reason, quickly
"$CMAX" bench net --no-nccl --yes --json --frontend "gone=127.0.0.1:9" >"$TMP/gone.json" 2>/dev/null
pycheck "unreachable server: FAIL naming the connect error" '
import json,sys; r=[x for x in json.load(open(sys.argv[1]))["results"] if x["id"].startswith("bench.net-frontend-")]
assert r[0]["status"]=="FAIL" and "connect" in r[0]["summary"], r' "$TMP/gone.json"
# one validator start (slow to import): every document of this script
pycheck "every document validates against the bench schema" 'import runpy,sys
sys.argv=[sys.argv[1]]+sys.argv[2:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
	"$SRCDIR/tests/contract/validate-bench.py" "${docs[@]}" "$TMP/fe.json" "$TMP/gone.json"
pyrun
done_testing
