#!/usr/bin/env bash
# Write a HealthCheckProgram wrapper for the inject tests and benchmarks:
# slurmd runs it with a clean environment and no arguments, so every path
# is baked in.  Each node reads its own log file and keeps its own state.
#
#   inject-hc-wrapper.sh OUT CMAX DIR SLURM_CONF
#     -> OUT runs: CMAX health check --log-file DIR/kern-$SLURMD_NODENAME.log
#                  --node $SLURMD_NODENAME --state DIR/hc-state-$SLURMD_NODENAME.json
set -euo pipefail
out=$1 cmax=$2 dir=$3 conf=$4
cat >"$out" <<HC
#!/bin/sh
export SLURM_CONF=$conf
n=\${SLURMD_NODENAME:?}
exec $cmax health check --log-file $dir/kern-\$n.log --node \$n --state $dir/hc-state-\$n.json >>$dir/hc-\$n.out 2>&1
HC
chmod 755 "$out"
