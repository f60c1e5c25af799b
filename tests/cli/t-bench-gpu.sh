#!/usr/bin/env bash
# cmax bench gpu where no GPU can run it: (1) the CUDA libraries absent
# (CMAX_CUDA_LIBDIR=/nonexistent acts out a fresh CI machine), (2) present
# but without a driver (this image's CUDA 13 toolkit: cudaGetDeviceCount
# returns 35, cudaErrorInsufficientDriver), (3) libcudart present but
# libcublasLt missing. Every figure must be a SKIP with the reason and the
# document must validate. On a machine with a real GPU the device row PASSes
# and a tiny run must produce positive figures. Options, --dry-run and a bad
# shapes file too. The arithmetic is in tests/unit/test_bench_gpu.c.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
# Python starts slowly on a loaded machine, so the JSON assertions are
# queued (pycheck DESC CODE FILES...) and run in one interpreter at the end.
mkdir -p "$TMP/chk"
pycheck() {
	local i
	i=$(ls "$TMP/chk" | grep -c '\.py$')
	printf '%s' "$1" >"$TMP/chk/$i.desc"
	printf '%s\n' "$2" >"$TMP/chk/$i.py"
	shift 2
	printf '%s\n' "$@" >"$TMP/chk/$i.args"
}
run_pychecks() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		*) not_ok "${line#not ok }" ;;
		esac
	done < <(python3 - "$TMP/chk" <<'EOP'
import os, sys, traceback
d = sys.argv[1]
for i in range(len([f for f in os.listdir(d) if f.endswith(".py")])):
    desc = open(f"{d}/{i}.desc").read()
    sys.argv = [""] + open(f"{d}/{i}.args").read().splitlines()
    try:
        exec(compile(open(f"{d}/{i}.py").read(), f"check{i}", "exec"), {})
        print("ok " + desc)
    except BaseException as e:
        print("not ok " + desc + " # " + repr(e)[:300].replace("\n", " "))
EOP
)
}

# --- 1. no CUDA libraries at all
CMAX_CUDA_LIBDIR=/nonexistent "$CMAX" bench gpu --json >"$TMP/none.json" 2>"$TMP/none.err" </dev/null
check "no CUDA: exits 0 (without --yes: nothing would run)" [ $? -eq 0 ]
pycheck "no CUDA: every row SKIP, device row names the library" '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]
assert d["benchmark"]=="gpu" and len(r)==57, len(r)
assert all(x["status"]=="SKIP" for x in r), [x["id"] for x in r if x["status"]!="SKIP"]
dev=r[0]; assert dev["id"]=="bench.gpu-device", dev["id"]
assert "CUDA runtime not found" in dev["summary"] and "libcudart.so.13" in dev["summary"], dev["summary"]
assert all("library not found" in x["summary"] for x in r[1:])
ids={x["id"] for x in r}
for k in ("copy-h2d","copy-d2h","copy-d2d","gemv-bf16","mamf-fp8","moe-kimi-k2-down-fp8-t4096","moe-deepseek-v3-gate-up-bf16-t128"):
    assert "bench.gpu-"+k in ids, k
assert d["target"]["path"]=="none"' "$TMP/none.json"

# --- 2. the libraries as installed here (or none, on a fresh machine)
have_rt=
for d in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu; do
	ls "$d"/libcudart.so.1[23] >/dev/null 2>&1 && have_rt=$d && break
done
"$CMAX" bench gpu --json --yes --only copy,gemv --dtypes bf16 --timeout 60 >"$TMP/rt.json" 2>"$TMP/rt.err" </dev/null
check "default library search: exits 0" [ $? -eq 0 ]
first_row=$(grep -m1 -A4 '"id": "bench.gpu-device"' "$TMP/rt.json")
case $first_row in
*'"status": "PASS"'*) state=gpu ;;
*cudaErrorInsufficientDriver*) state=nodriver ;;
*"not found"*) state=nolib ;;
*) state="other: $(echo $first_row)" ;;
esac
echo "# device row: $state (toolkit: ${have_rt:-none})"
case $state in
nodriver)
	pycheck "CUDA without a driver: cudaErrorInsufficientDriver (35) named, every figure SKIP" '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]
assert "cudaErrorInsufficientDriver" in r[0]["summary"], r[0]["summary"]
o=r[0]["observed"]; assert o["cudart"] and o["runtime_version"]>=12000, o
assert all(x["status"]=="SKIP" and "insufficient driver" in x["summary"] for x in r[1:]), r[1]["summary"]
assert len(r)==5' "$TMP/rt.json" ;;
nolib)
	check "no CUDA in the loader path: SKIP, library not found" [ -z "$have_rt" ] ;;
gpu)
	pycheck "real GPU: copy and GEMV figures measured" '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
for k in ("copy-h2d","copy-d2h","copy-d2d","gemv-bf16"):
    x=r["bench.gpu-"+k]; assert x["status"] in ("PASS","WARN","FAIL","SKIP"), x["summary"]
    o=x["observed"]; assert (o.get("copy_gb_s") or o.get("gb_s"))>0, o' "$TMP/rt.json" ;;
*)
	not_ok "unexpected device row: $state" ;;
esac

# --- 3. libcudart without libcublasLt
if [ -n "$have_rt" ]; then
	mkdir -p "$TMP/rtonly"
	ln -s "$(ls "$have_rt"/libcudart.so.1[23] | head -1)" "$TMP/rtonly/"
	CMAX_CUDA_LIBDIR=$TMP/rtonly "$CMAX" bench gpu --json --yes --only gemv >"$TMP/rto.json" 2>/dev/null </dev/null
	pycheck "libcudart only: runs, cuBLASLt recorded as absent" '
import json,sys; r=json.load(open(sys.argv[1]))["results"]
o=r[0]["observed"]; assert "cudart" in o and "cublaslt" not in o, o
assert r[1]["status"]=="SKIP" and r[1]["summary"], r[1]' "$TMP/rto.json"
else
	skip "libcudart only (no CUDA toolkit on this machine)"
fi

# --- 4. the measuring code against tests/fakecuda (host memory, busy-wait
# matmuls): every figure is produced and graded, allocation failures are
# ERROR rows, unknown GPUs are not graded, sm_80 has no FP8, SIGINT keeps
# what was measured, nothing leaks (the fake counts its allocations).
F=$TMP/fake
mkdir -p "$F"
if cc -shared -fPIC -O1 -o "$F/libcudart.so.13" "$SRCDIR/tests/fakecuda/fakecuda.c" 2>"$TMP/cc.err"; then
	ln -s libcudart.so.13 "$F/libcublasLt.so.13"
	cat >"$TMP/tiny.json" <<'EOS'
{"moe_models":[{"key":"tiny","name":"tiny MoE","hidden":512,"moe_intermediate":256,"routed_experts":16,"top_k":4}],
 "token_counts":{"quick":[2,64]}, "mamf":{"quick":{"m":[256,512],"n":[256],"k":[32,512]}},
 "gemv":{"n":4096,"k":1024}, "copy":{"quick_mib":8}}
EOS
	fk=(--yes --json --shapes "$TMP/tiny.json" --rep-ms 2)
	CMAX_CUDA_LIBDIR=$F "$CMAX" bench gpu "${fk[@]}" --dtypes bf16,fp8 >"$TMP/fk.json" 2>"$TMP/fk.err"
	check "fake GPU: exits 0" [ $? -eq 0 ]
	check "fake GPU: no allocation left behind" bash -c '! grep -q "not freed" "$1"' _ "$TMP/fk.err"
	pycheck "fake GPU: every figure measured and graded against H100" '
import json,sys; r={x["id"][10:]:x for x in json.load(open(sys.argv[1]))["results"]}
assert r["device"]["status"]=="PASS" and r["device"]["observed"]["spec_key"]=="H100", r["device"]
assert len(r)==1+3+1+2+2*2*2, len(r)
for k,x in r.items():
    if k=="device": continue
    assert x["status"] in ("PASS","WARN","FAIL"), (k, x["summary"])
    assert x["observed"]["ratio"]>0 and x["observed"]["reference"]>0, (k, x["observed"])
assert r["copy-h2d"]["observed"]["copy_gb_s"]>0 and r["copy-d2d"]["observed"]["hbm_traffic_gb_s"]>0
m=r["mamf-fp8"]["observed"]; assert m["shapes_measured"]==2 and m["shapes_without_algorithm"]==2, m
assert r["mamf-bf16"]["observed"]["shapes_measured"]==4
x=r["moe-tiny-gate-up-bf16-t2"]["observed"]; assert x["active_experts"]==8 and x["gemm_calls"]==8 and x["n"]==512 and x["k"]==512, x
x=r["moe-tiny-down-fp8-t64"]["observed"]; assert x["tokens_per_expert_min"]==16 and x["tflops"]>0 and x["roofline_tflops"]>0, x
assert x["flops"]==2*64*4*512*256, x["flops"]' "$TMP/fk.json"
	FAKECUDA_MEM_MIB=40 CMAX_CUDA_LIBDIR=$F "$CMAX" bench gpu "${fk[@]}" --only copy,moe --dtypes tf32 >"$TMP/oom.json" 2>"$TMP/oom.err"
	pycheck "fake GPU out of memory: ERROR rows with the CUDA error, exit 0, nothing leaked" '
import json,sys; r=json.load(open(sys.argv[1]))["results"]
e=[x for x in r if x["status"]=="ERROR"]; assert len(e)>=3, [x["summary"] for x in r]
assert all("cudaErrorMemoryAllocation" in x["summary"] for x in e), e[0]["summary"]
assert "not freed" not in open(sys.argv[2]).read()' "$TMP/oom.json" "$TMP/oom.err"
	FAKECUDA_NAME="NVIDIA RTX PRO 6000 Blackwell" FAKECUDA_CC=80 CMAX_CUDA_LIBDIR=$F \
		"$CMAX" bench gpu "${fk[@]}" --only gemv,mamf --dtypes bf16,fp8 >"$TMP/unk.json" 2>/dev/null
	pycheck "fake unknown sm_80 GPU: figures measured but not graded, fp8 SKIP" '
import json,sys; r={x["id"][10:]:x for x in json.load(open(sys.argv[1]))["results"]}
assert r["device"]["observed"]["spec_key"] is None and "not graded" in r["device"]["summary"]
g=r["gemv-bf16"]; assert g["status"]=="SKIP" and g["observed"]["gb_s"]>0 and "no reference" in g["summary"], g
assert r["mamf-fp8"]["status"]=="SKIP" and "sm_89" in r["mamf-fp8"]["summary"], r["mamf-fp8"]["summary"]' "$TMP/unk.json"
	FAKECUDA_MATMUL_US=20000 CMAX_CUDA_LIBDIR=$F "$CMAX" bench gpu "${fk[@]}" --only gemv,mamf --dtypes bf16 \
		--rep-ms 5000 --timeout 1 >"$TMP/to.json" 2>/dev/null
	pycheck "--timeout: figures past the budget are SKIP" '
import json,sys; r=json.load(open(sys.argv[1]))["results"]
assert any(x["status"]=="SKIP" and "time budget" in x["summary"] for x in r), [x["summary"] for x in r]' "$TMP/to.json"
	FAKECUDA_MATMUL_US=20000 CMAX_CUDA_LIBDIR=$F "$CMAX" bench gpu --yes --shapes "$TMP/tiny.json" --rep-ms 5000 --only gemv,mamf \
		--output-file "$TMP/int.json" >/dev/null 2>"$TMP/int.err" &
	pid=$!
	sleep 1
	kill -INT $pid
	wait $pid
	check "SIGINT: exit 130" [ $? -eq 130 ]
	pycheck "SIGINT: document kept, marked interrupted, nothing leaked" '
import json,sys; d=json.load(open(sys.argv[1])); assert d["interrupted"] is True
assert "not freed" not in open(sys.argv[2]).read()' "$TMP/int.json" "$TMP/int.err"
	docs_fake=("$TMP/fk.json" "$TMP/oom.json" "$TMP/unk.json" "$TMP/to.json" "$TMP/int.json")
else
	diag <"$TMP/cc.err"
	skip "fake CUDA runtime (no C compiler)"
	docs_fake=()
fi

# --- options, plan, data files
"$CMAX" bench gpu --dry-run >"$TMP/plan.txt" 2>&1
check "dry-run: plan names the libraries and MoE shapes" grep -q 'kimi-k2 fp8 gate-up and down, tokens 128 1024 4096' "$TMP/plan.txt"
"$CMAX" bench gpu --dry-run --json --full --only mamf,moe --dtypes bf16,fp8 >"$TMP/plan.json"
pycheck "dry-run --json: a plan object" '
import json,sys; p=json.load(open(sys.argv[1])); q=p["parameters"]
assert p["schema"]=="cmax.bench.plan/1" and q["dtypes"]==["bf16","fp8"] and q["parts"]==["mamf","moe"]
assert q["moe_tokens"]==[128,512,1024,4096,16384] and q["timeout_s"]==3600' "$TMP/plan.json"
CMAX_CUDA_LIBDIR=/nonexistent "$CMAX" bench gpu --json --only mamf --dtypes tf32,fp16 --tokens 7,64 >"$TMP/sub.json"
pycheck "--only/--dtypes select the rows" '
import json,sys; r=[x["id"] for x in json.load(open(sys.argv[1]))["results"]]
assert r==["bench.gpu-device","bench.gpu-mamf-fp16","bench.gpu-mamf-tf32"], r' "$TMP/sub.json"
for bad in "--dtypes fp64" "--only nope" "--device -1" "--tokens 0" "--tokens" "--bogus 1"; do
	"$CMAX" bench gpu $bad >/dev/null 2>&1
	check "bad option '$bad': exit 64" [ $? -eq 64 ]
done
"$CMAX" bench gpu --help >"$TMP/help" 2>&1
check "--help: exit 0, names CMAX_CUDA_LIBDIR" grep -q CMAX_CUDA_LIBDIR "$TMP/help"
echo '{"moe_models": []}' >"$TMP/shapes.json"
"$CMAX" bench gpu --shapes "$TMP/shapes.json" --dry-run >/dev/null 2>"$TMP/err"
check "shapes file without models: exit 65" [ $? -eq 65 ]
"$CMAX" bench gpu --specs "$TMP/missing.json" --dry-run >/dev/null 2>&1
check "missing specs file: exit 65" [ $? -eq 65 ]
"$CMAX" bench --help | grep -q '^  gpu '
check "cmax bench --help lists gpu" [ $? -eq 0 ]
docs=("$TMP/none.json" "$TMP/rt.json" "$TMP/sub.json")
[ -f "$TMP/rto.json" ] && docs+=("$TMP/rto.json")
docs+=("${docs_fake[@]}")
pycheck "every document validates against the bench schema" '
import runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as e:
    assert not e.code, "validate-bench.py found errors (printed above)"' "$SRCDIR/tests/contract/validate-bench.py" "${docs[@]}"
run_pychecks
done_testing
