#!/usr/bin/env bash
# cmax bench net: nccl-tests and perftest on recorded outputs (tests/unit/net/)
# replayed by tests/fakecmd through a fake srun inside a fake allocation,
# the NIC line rate from the h100-healthy fixture's sysfs; a clean SKIP without
# nccl-tests; a hung run becomes an ERROR; the front-end probe between
# network namespaces on this machine (127.0.0.1 when namespaces are refused).
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
runfake() { # DIR args... (inside a fake 4-node allocation of gpu-a[01-04])
	local d=$1; shift
	: >"$d/fake.log"
	env -i HOME="$TMP" PATH="$d/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_FAKE_DIR="$d/cmd" \
		CMAX_FAKE_LOG="$d/fake.log" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 \
		SLURM_JOB_NODELIST='gpu-a[01-04]' \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" bench net --sysroot "$ROOT" "$@"
}
sweep='-b 8 -e 16G -f 2 -g 1'
nccl_args() { # NODES BIN
	echo --nodes=$1 --ntasks=$(($1 * 8)) --ntasks-per-node=8 $2 $sweep
}

# --- no nccl-tests at all: a clean SKIP, nothing started, no --yes needed
E=$TMP/empty; mkdir -p "$E/cmd"; fakebin "$E"
runfake "$E" --json >"$TMP/none.json" 2>"$TMP/none.err" </dev/null
check "no nccl-tests: exit 0" [ $? -eq 0 ]
diag <"$TMP/none.err"
check "no nccl-tests: one SKIP row with the reason, valid document" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]
assert len(r)==1 and r[0]["status"]=="SKIP" and "no nccl-tests on PATH" in r[0]["summary"], r
assert r[0]["profile"]=="networking" and d["benchmark"]=="net"' "$TMP/none.json"

# --- healthy fabric: all_reduce at 1, 2 and 4 nodes through srun
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
runfake "$A" --scaling </dev/null >/dev/null 2>"$TMP/noyes"
check "without --yes and no terminal: exit 64" [ $? -eq 64 ]
runfake "$A" --yes --json --scaling >"$TMP/a.json" 2>"$TMP/a.err"
check "healthy run: exit 0" [ $? -eq 0 ]
diag <"$TMP/a.err"
check "healthy run: no unrecorded command" [ ! -s "$A/fake.log" ]
check "healthy run: busbw vs 8x400G line rate, 64 KiB latency, scaling PASS" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
one=r["bench.net-nccl-all-reduce-n8"]; two=r["bench.net-nccl-all-reduce-n16"]; four=r["bench.net-nccl-all-reduce-n32"]
o=two["observed"]
assert two["status"]=="PASS", two["summary"]
assert abs(o["busbw_peak_gb_s"]-371.84)<0.01 and o["busbw_peak_at_bytes"]==17179869184, o
assert o["nic_line_rate_gbit_s"]==3200 and o["nic_ports"]==8 and abs(o["busbw_line_ratio"]-0.93)<0.01, o
assert abs(o["latency_64k_us"]-38.33)<0.01 and o["wrong"]==0 and o["jagged_dips"]==0 and o["nodes"]==2, o
assert one["status"]=="PASS" and "one node" in one["summary"] and one["observed"]["busbw_line_ratio"] is None, one
assert four["status"]=="PASS", four["summary"]
s=r["bench.net-nccl-all-reduce-scaling"]
assert s["status"]=="PASS" and len(s["observed"]["points"])==3 and 0<s["observed"]["worst_drop_pct"]<10, s
assert two["reproduce"].startswith("srun --nodes=2 --ntasks=16"), two["reproduce"]' "$TMP/a.json"

# --- a sick fabric: jagged all_reduce with wrong elements, alltoall -c 0,
# an aborted all_gather, a hung broadcast; perftest on two rails
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
check "sick all_reduce: FAIL for wrong elements, jagged named" python3 -c '
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
check "sick run: alltoall unchecked + WARN, all_gather FAIL, broadcast HUNG, perftest graded" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
a=r["bench.net-nccl-alltoall-n16"]
assert a["status"]=="WARN" and "unchecked" in a["summary"] and a["observed"]["wrong"] is None, a["summary"]
g=r["bench.net-nccl-all-gather-n16"]
assert g["status"]=="FAIL" and "Test NCCL failure" in g["summary"], g["summary"]
h=r["bench.net-nccl-broadcast-n16"]
assert h["status"]=="ERROR" and "HUNG" in h["summary"], h["summary"]
w0=r["bench.net-perftest-write-mlx5-0"]; w3=r["bench.net-perftest-write-mlx5-3"]; r0=r["bench.net-perftest-read-mlx5-0"]
assert w0["status"]=="PASS" and abs(w0["observed"]["bw_avg_gbit_s"]-391.87)<0.01 and w0["observed"]["peer"]=="gpu-a02", w0
assert w3["status"]=="FAIL" and abs(w3["observed"]["bw_avg_gbit_s"]-196.93)<0.05, w3
assert r0["observed"]["units"]=="MiB/sec" and r0["status"] in ("PASS","WARN","FAIL"), r0
assert "ib_write_bw -d mlx5_0" in w0["reproduce"], w0["reproduce"]' "$TMP/b.json"
check "sick run took under 15 s (hang killed at --run-timeout)" [ $(( $(date +%s) - t0 )) -lt 15 ]

# --- front-end network between namespaces
fe_check() { # JSON NPAIRS LOSSY_DST|-
	python3 - "$@" <<'PY'
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
PY
}
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
	check "namespaces: 6 directed pairs measured, figures plausible" fe_check "$TMP/fe.json" 6 "$lossy"
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
	check "loopback: 2 pairs from this host measured" fe_check "$TMP/fe.json" 2 -
	kill $s1 $s2 2>/dev/null; wait $s1 $s2 2>/dev/null
	skip "no network namespaces: injected-loss assertion not exercised"
fi

# an unreachable server is a FAIL with the reason, quickly
"$CMAX" bench net --no-nccl --yes --json --frontend "gone=127.0.0.1:9" >"$TMP/gone.json" 2>/dev/null
check "unreachable server: FAIL naming the connect error" python3 -c '
import json,sys; r=[x for x in json.load(open(sys.argv[1]))["results"] if x["id"].startswith("bench.net-frontend-")]
assert r[0]["status"]=="FAIL" and "connect" in r[0]["summary"], r' "$TMP/gone.json"
# one validator start (slow to import): every document of this script
check "every document validates against the bench schema" python3 "$SRCDIR/tests/contract/validate-bench.py" \
	"$TMP/none.json" "$TMP/a.json" "$TMP/b1.json" "$TMP/b.json" "$TMP/fe.json" "$TMP/gone.json"
done_testing
