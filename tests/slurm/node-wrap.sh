#!/usr/bin/env bash
# The --node-cmd of the fleet tests: srun runs it once per Slurm node, and
# it turns that node into a fixture host (tests/fixtures/hosts/<name>): the
# fixture's sysroot, its recorded tools alone on PATH (tests/fakecmd), its
# environment and pinned clock. Then `cmax node-collect` runs as it would
# on a real node. Several nodes on one machine can so carry different
# drivers, kernels and GPUs.
#
# srun calls it as: node-wrap.sh node-collect [node-collect options...]
#
# Environment (srun passes the caller's environment to every task):
#   CMAX_NODE_MAP      file of "NODE FIXTURE" lines (required). FIXTURE is a
#                      host name under tests/fixtures/hosts, a path to such a
#                      directory, or a fault:
#                        @hang     never answers (sleep)
#                        @fail     prints garbage and exits 3
#                        @partial  prints only the first half of its document
#                      A node missing from the map gets the line "* FIXTURE"
#                      when there is one, else fails.
#   CMAX_NODE_BIN      the cmax to run (default: $BUILD/cmax)
#   CMAX_NODE_WORK     scratch directory for the per-node PATH (required)
#   CMAX_NODE_TOOLS    real tools to add to the fake PATH ("scontrol sinfo")
#   CMAX_SRCDIR / SRCDIR, BUILD   the source tree and the build directory
set -u
node=${SLURMD_NODENAME:-$(hostname -s)}
src=${CMAX_SRCDIR:-${SRCDIR:?CMAX_SRCDIR or SRCDIR}}
bin=${CMAX_NODE_BIN:-${BUILD:?CMAX_NODE_BIN or BUILD}/cmax}
fakecmd=${CMAX_FAKECMD:-$(dirname "$bin")/fakecmd}
work=${CMAX_NODE_WORK:?CMAX_NODE_WORK}
map=${CMAX_NODE_MAP:?CMAX_NODE_MAP}
[ "${1:-}" = node-collect ] && shift

fx=$(awk -v n="$node" '$1 == n { print $2; found = 1; exit } $1 == "*" { dflt = $2 }
	END { if (!found && dflt != "") print dflt }' "$map")
if [ -z "$fx" ]; then
	echo "node-wrap: $node is not in $map" >&2
	exit 2
fi
case $fx in
@hang) exec sleep 1000 ;;
@fail) echo "this is not a node document"; exit 3 ;;
esac
case $fx in
/*) hd=$fx ;;
@partial) hd=$src/tests/fixtures/hosts/h100-healthy ;;
*) hd=$src/tests/fixtures/hosts/$fx ;;
esac
[ -d "$hd/root" ] || { echo "node-wrap: no fixture host at $hd" >&2; exit 2; }

nb=$work/$node/bin
# The fake PATH is rebuilt only when the node becomes another fixture:
# repeated audits (the scale benchmark) measure cmax, not this script.
stamp="$hd|$fakecmd|${CMAX_NODE_TOOLS:-}"
if [ "$(cat "$work/$node/stamp" 2>/dev/null)" != "$stamp" ]; then
	mkdir -p "$nb" "$work/$node/home"
	"$src/tests/fakecmd/mkbin.sh" "$hd/cmd" "$fakecmd" "$nb" >/dev/null || exit 2
	for t in ${CMAX_NODE_TOOLS:-}; do
		real=$(command -v "$t" 2>/dev/null) || continue
		ln -sf "$real" "$nb/$t"
	done
	printf '%s\n' "$stamp" >"$work/$node/stamp"
fi
# shellcheck disable=SC2046 # the fixture's env file is word-split on purpose
run() {
	cd "$hd" && env -i HOME="$work/$node/home" PATH="$nb" TZ=UTC $(grep -v '^#' "$hd/env" 2>/dev/null) \
		SLURMD_NODENAME="$node" CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$work/$node/fake.log" \
		CMAX_DATADIR="$src/data" ${SLURM_CONF:+SLURM_CONF=$SLURM_CONF} \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$bin" node-collect --sysroot "$hd/root" --node-name "$node" "$@"
}
if [ "$fx" = @partial ]; then
	out=$(run "$@")
	n=$(printf '%s\n' "$out" | wc -l)
	printf '%s\n' "$out" | head -n $((n / 2))
	exit 0
fi
run "$@"
