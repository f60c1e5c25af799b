#!/usr/bin/env bash
# The Slurm configuration checks (src/checks/slurm.c) against a real Slurm
# (tests/slurm/slurm-up.sh: munge, slurmctld, two slurmd on loopback), each
# node a fixture host (h100-healthy: 8 GPUs, ~2 TB MemTotal) through
# tests/slurm/node-wrap.sh, graded by `cmax audit --slurm --yes --json`.
# Two clusters: a healthy configuration (tree topology over two racks, GRES
# gpu:8, RealMemory just under MemTotal, a DCGM health check, job defaults,
# fast prolog, spool on disk, SSH, Lmod with CUDA, NCCL and HPC-X modules) and a misconfigured one (no
# HealthCheckProgram, RealMemory=2048, flat topology over two racks, no GRES,
# a prolog slower than MessageTimeout, ReturnToService=0, spool on tmpfs, a
# drained node, no SSH, spank_pyxis.so in PluginDir but not in plugstack.conf), and a third whose
# HealthCheckProgram exists on the
# login node but is missing on one compute node and not executable on
# another (each node looks for it in its own sysroot: copies of the fixture
# host with the script planted, or left out) and whose plugstack enables Pyxis with enroot on one node
# only. What cannot run here is faked
# and said so: ssh
# (no sshd) is a script on PATH, Lmod is LMOD_CMD/MODULEPATH in the
# environment.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
. "$SRCDIR/tests/slurm/fleet-lib.sh"
PY=${PYTHON:-/usr/bin/python3}

for t in slurmctld slurmd munged srun scontrol; do
	if ! command -v "$t" >/dev/null; then
		skip "Slurm not installed ($t missing): apt-get install slurm-wlm slurmctld slurmd slurm-client munge"
		done_testing
		exit
	fi
done
if [ "$(id -u)" != 0 ]; then
	skip "the test Slurm runs its daemons as root"
	done_testing
	exit
fi

# expect FILE ID STATUS [WORDS...]: the cluster row of check ID has STATUS
# (a|b alternatives) and its summary contains every word.
expect() {
	local f=$1 id=$2 st=$3; shift 3
	local got
	got=$("$PY" - "$f" "$id" "$@" <<'EOF'
import json, sys
f, cid, words = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    rows = [r for r in json.load(open(f))["results"] if r["id"] == cid]
except Exception as e:
    print("unreadable", repr(e)); sys.exit()
if not rows:
    print("missing"); sys.exit()
r = rows[0]
miss = [w for w in words if w not in r["summary"]]
print(r["status"] + ("" if not miss else " (summary lacks %s)" % miss), "|", r["summary"][:300])
EOF
)
	local status=${got%% *}
	if printf '%s\n' "$st" | tr '|' '\n' | grep -qx -- "$status" && [ "${got#*(summary lacks}" = "$got" ]; then
		ok "$id is $st"
	else
		not_ok "$id is $st"
		echo "$got" | diag
	fi
}

FAKEBIN=$TMP/fakebin
mkdir -p "$FAKEBIN" "$TMP/modulefiles/cuda" "$TMP/modulefiles/hpcx" "$TMP/modulefiles/nccl" "$TMP/lmod"
: >"$TMP/lmod/lmod"
: >"$TMP/modulefiles/cuda/12.8.lua"
: >"$TMP/modulefiles/nccl/2.27.3.lua"
# Pyxis as its package leaves it: the plugin in a PluginDir, no plugstack line
# (an empty file stands in for the shared object; nothing dlopens it unless
# plugstack names it, and then as optional)
mkdir -p "$TMP/plugins"
: >"$TMP/plugins/spank_pyxis.so"
# no sshd can run here: ssh answers as the variant says
cat >"$FAKEBIN/ssh" <<'EOF'
#!/bin/sh
[ -e "$CMAX_TEST_SSH_OK" ] && exit 0
echo "ssh: connect to host $5 port 22: Connection refused" >&2
exit 255
EOF
chmod 755 "$FAKEBIN/ssh"

# --- 1. healthy ---
t0=$(date +%s)
cat >"$TMP/topology.conf" <<'EOF'
# two leaf switches, one per rack
SwitchName=leaf0 Nodes=node1
SwitchName=leaf1 Nodes=node2
SwitchName=spine Switches=leaf[0-1]
EOF
cat >"$TMP/hc.sh" <<'EOF'
#!/bin/sh
# GPU health: DCGM background health watches (no diag on busy nodes)
command -v dcgmi >/dev/null 2>&1 && dcgmi health -c -j >/dev/null 2>&1
exit 0
EOF
chmod 755 "$TMP/hc.sh"
# node_fixture FIXTURE NAME [MODE]: $TMP/hosts/NAME, a copy of fixture host
# FIXTURE whose sysroot also holds the health check at its host path, with
# MODE (no MODE: left out, as on a node nobody installed it on)
node_fixture() {
	local dst=$TMP/hosts/$2
	mkdir -p "$dst"
	cp -a "$SRCDIR/tests/fixtures/hosts/$1/." "$dst/"
	if [ -n "${3:-}" ]; then
		mkdir -p "$dst/root$(dirname "$TMP/hc.sh")"
		cp "$TMP/hc.sh" "$dst/root$TMP/hc.sh"
		chmod "$3" "$dst/root$TMP/hc.sh"
	fi
}
node_fixture h100-healthy hc-ok 755
node_fixture h100-healthy hc-missing
node_fixture h100-healthy hc-noexec 644
# enroot on node1 only (cluster 3 enables Pyxis): its binary and configuration as the package installs them
mkdir -p "$TMP/hosts/hc-ok/root/usr/bin" "$TMP/hosts/hc-ok/root/etc/enroot"
printf '#!/bin/sh\n' >"$TMP/hosts/hc-ok/root/usr/bin/enroot"
chmod 755 "$TMP/hosts/hc-ok/root/usr/bin/enroot"
printf '#ENROOT_RUNTIME_PATH        ${XDG_RUNTIME_DIR}/enroot\n' >"$TMP/hosts/hc-ok/root/etc/enroot/enroot.conf"
if slurm_start NNODES=2 GPUS=8 RACKS=1 REAL_MEMORY=2000000 TOPOLOGY=tree:"$TMP/topology.conf" \
	HEALTH_PROGRAM="$TMP/hc.sh" HC_INTERVAL=300 NODE_HOSTNAME=cn \
	EXTRA_CONF="MessageTimeout=30
DefCpuPerGPU=4
DefMemPerGPU=64000"; then
	ok "healthy Slurm came up"
	fleet_map "*=$TMP/hosts/hc-ok"
	touch "$TMP/ssh-ok"
	PATH=$FAKEBIN:$PATH CMAX_TEST_SSH_OK=$TMP/ssh-ok LMOD_CMD=$TMP/lmod/lmod MODULEPATH=$TMP/modulefiles \
		fleet_audit "$TMP/healthy" --partition gpu
	H=$TMP/healthy/stdout
	echo "# healthy audit done at +$(($(date +%s) - t0)) s"
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); print("# collector ms:", {k: c.get("duration_ms") for k, c in v.get("facts", v).items() if isinstance(c, dict)})' "$TMP/healthy/run/audit.values.json" 2>&1 | head -3
	check "healthy: audit exits 0 (got $(cat "$TMP/healthy/rc"))" test "$(cat "$TMP/healthy/rc")" = 0
	[ "$(cat "$TMP/healthy/rc")" = 0 ] || diag <"$TMP/healthy/stderr"
	expect "$H" orchestration.slurm-topology PASS "topology/tree" "all 2 GPU nodes"
	expect "$H" orchestration.slurm-gres PASS "all 2 nodes"
	expect "$H" orchestration.slurm-realmemory PASS "all 2 nodes"
	expect "$H" orchestration.slurm-defaults PASS "DefCpuPerGPU"
	expect "$H" orchestration.slurm-ctld-colocation PASS
	expect "$H" orchestration.slurm-node-states PASS "all 2 nodes up"
	expect "$H" orchestration.slurm-accounting WARN "accounting_storage/none"
	expect "$H" health.slurm-healthcheck PASS "DCGM"
	check "healthy: every node looked for the health check itself" \
		"$PY" -c 'import json,sys; n=json.load(open(sys.argv[1]))["nodes"]; sys.exit(len(n) != 2 or any((f or {}).get("slurm-node", {}).get("facts", {}).get("executable") is not True for f in n.values()))' "$TMP/healthy/run/audit.values.json"
	expect "$H" health.slurm-prolog PASS
	expect "$H" health.slurm-return-to-service PASS "ReturnToService=2"
	expect "$H" software.slurm-pmix PASS pmix
	expect "$H" software.slurm-lmod PASS "3 modules" "CUDA, NCCL and MPI/HPC-X"
	expect "$H" containers.slurm-pyxis WARN "no Pyxis"
	expect "$H" storage.slurm-spool PASS "GiB free"
	expect "$H" access.slurm-ssh PASS "cn"
	expect "$H" access.slurm-commands PASS "all 6 Slurm client commands work"
	if "$PY" "$SRCDIR/tests/contract/validate.py" "$H" >"$TMP/contract" 2>&1; then
		ok "healthy: report satisfies the contract"
	else
		not_ok "healthy: report satisfies the contract"; diag <"$TMP/contract"
	fi
else
	not_ok "healthy Slurm came up"; diag <"$TMP/slurm-up.log"
fi
slurm_stop
echo "# healthy: $(($(date +%s) - t0)) s"

# --- 2. misconfigured ---
t0=$(date +%s)
SHM=$(mktemp -d /dev/shm/cmax-spool.XXXXXX)
mkdir -p "$SHM/node1" "$SHM/node2"
printf '#!/bin/sh\nsleep 5\n' >"$TMP/slow-prolog.sh"
chmod 755 "$TMP/slow-prolog.sh"
if slurm_start NNODES=2 GPUS=0 RACKS=1 REAL_MEMORY=2048 TOPOLOGY=flat HEALTH_PROGRAM= \
	PROLOG="$TMP/slow-prolog.sh" EXTRA_CONF="MessageTimeout=4
ReturnToService=0
SlurmdSpoolDir=$SHM/%n
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm:$TMP/plugins"; then
	trap 'slurm_stop; rm -rf "$TMP" "$SHM"' EXIT
	ok "misconfigured Slurm came up"
	scontrol update NodeName=node2 State=DRAIN Reason="xid 79 on gpu 3"
	fleet_map "*=h100-healthy"
	# a login node whose Slurm client lacks sbatch (a partial client install):
	# every other program of the PATH stays reachable through links
	mkdir -p "$TMP/nosbatch"
	IFS=: read -ra dirs <<<"$PATH"
	for d in "${dirs[@]}"; do
		for x in "$d"/*; do
			n=${x##*/}
			[ "$n" = sbatch ] || [ -e "$TMP/nosbatch/$n" ] || ln -s "$x" "$TMP/nosbatch/$n" 2>/dev/null
		done
	done
	PATH=$FAKEBIN:$TMP/nosbatch fleet_audit "$TMP/bad" --nodes node1
	B=$TMP/bad/stdout
	check "misconfigured: audit exits 0 (got $(cat "$TMP/bad/rc"))" test "$(cat "$TMP/bad/rc")" = 0
	[ "$(cat "$TMP/bad/rc")" = 0 ] || diag <"$TMP/bad/stderr"
	expect "$B" orchestration.slurm-topology FAIL "topology/none" "2 racks"
	expect "$B" orchestration.slurm-gres FAIL "node1 has 8 GPUs but no gpu GRES"
	expect "$B" orchestration.slurm-realmemory FAIL "RealMemory=2048" "far below"
	expect "$B" orchestration.slurm-defaults WARN "DefMemPerCPU"
	expect "$B" orchestration.slurm-ctld-colocation WARN "node1"
	expect "$B" orchestration.slurm-node-states "FAIL" "node2" "xid 79 on gpu 3" "by root"
	expect "$B" health.slurm-healthcheck FAIL "no HealthCheckProgram"
	expect "$B" health.slurm-prolog FAIL "longer than MessageTimeout (4s)"
	expect "$B" health.slurm-return-to-service WARN "ReturnToService=0"
	expect "$B" software.slurm-lmod WARN
	expect "$B" containers.slurm-pyxis FAIL "installed but not enabled" "$TMP/plugins/spank_pyxis.so"
	expect "$B" containers.slurm-pyxis-enroot SKIP "not enabled"
	expect "$B" storage.slurm-spool WARN "tmpfs"
	expect "$B" access.slurm-ssh WARN "Connection refused"
	expect "$B" access.slurm-commands WARN "1 of 6 Slurm client commands fail" "sbatch --test-only" "not found"
else
	trap 'slurm_stop; rm -rf "$TMP" "$SHM"' EXIT
	not_ok "misconfigured Slurm came up"; diag <"$TMP/slurm-up.log"
fi
slurm_stop
echo "# misconfigured: $(($(date +%s) - t0)) s"

# --- 3. a HealthCheckProgram the compute nodes cannot run ---
t0=$(date +%s)
if slurm_start NNODES=3 GPUS=8 RACKS=1 REAL_MEMORY=2000000 HEALTH_PROGRAM="$TMP/hc.sh" HC_INTERVAL=300 \
	NODE_HOSTNAME=cn; then
	trap 'slurm_stop; rm -rf "$TMP" "$SHM"' EXIT
	ok "Slurm with a per-node health check came up"
	fleet_map "node1=$TMP/hosts/hc-ok" "node2=$TMP/hosts/hc-missing" "node3=$TMP/hosts/hc-noexec"
	# Pyxis enabled (optional: the stand-in .so does not load) where only node1 has enroot
	echo "optional $TMP/plugins/spank_pyxis.so" >"$BASE/etc/plugstack.conf"
	PATH=$FAKEBIN:$PATH fleet_audit "$TMP/hcnodes" --partition gpu
	N=$TMP/hcnodes/stdout
	check "per-node health check: audit exits 0 (got $(cat "$TMP/hcnodes/rc"))" test "$(cat "$TMP/hcnodes/rc")" = 0
	[ "$(cat "$TMP/hcnodes/rc")" = 0 ] || diag <"$TMP/hcnodes/stderr"
	# the login node has it, executable: only the nodes' own view can tell
	expect "$N" health.slurm-healthcheck FAIL "does not exist on node2" "not executable on node3" "2 of 3 nodes"
	expect "$N" containers.slurm-pyxis WARN "does not load in srun"
	expect "$N" containers.slurm-pyxis-enroot FAIL "configured without enroot" "node2,node3"
else
	trap 'slurm_stop; rm -rf "$TMP" "$SHM"' EXIT
	not_ok "Slurm with a per-node health check came up"; diag <"$TMP/slurm-up.log"
fi
slurm_stop
echo "# per-node health check: $(($(date +%s) - t0)) s"
done_testing
