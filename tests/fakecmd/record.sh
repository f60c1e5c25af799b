#!/bin/sh
# record.sh CMD_DIR NAME [ARGS...]
#
# Runs NAME ARGS... on this machine and stores what it did as a fakecmd
# recording (see fakecmd.c) in CMD_DIR/NAME/<id>/: argv, stdout, stderr and
# exit. Use it on a real node to capture fixtures, e.g.
#
#   tests/fakecmd/record.sh tests/fixtures/hosts/dgx-h100/cmd nvidia-smi \
#       --query-gpu=index,uuid --format=csv,noheader,nounits
#
# <id> is $RECORD_ID when set, else the next free three-digit number, so
# recordings are tried in the order they were made. The command runs with
# LC_ALL=C (as cmax runs it) under a $RECORD_TIMEOUT second limit (default
# 60); a command that hits it is recorded as hanging (a `hang` file, output
# written first). Review stdout/stderr before committing: they may hold
# hostnames, serial numbers or addresses.
set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 CMD_DIR NAME [ARGS...]" >&2
	exit 2
fi
cmd_dir=$1
name=$2
shift 2

case $name in
*/*)
	echo "$0: NAME is a command name, not a path: $name" >&2
	exit 2
	;;
esac
for a in "$@"; do
	case $a in
	*'
'*)
		echo "$0: an argument contains a newline; the argv format cannot hold it" >&2
		exit 2
		;;
	esac
done

dir=$cmd_dir/$name
mkdir -p "$dir"
if [ -n "${RECORD_ID:-}" ]; then
	id=$RECORD_ID
else
	n=1
	while [ -e "$dir/$(printf %03d "$n")" ]; do
		n=$((n + 1))
	done
	id=$(printf %03d "$n")
fi
rec=$dir/$id
if [ -e "$rec" ]; then
	echo "$0: $rec already exists" >&2
	exit 1
fi
mkdir "$rec"

if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$rec/argv"
else
	: >"$rec/argv"
fi

rc=0
LC_ALL=C timeout -s KILL "${RECORD_TIMEOUT:-60}" "$name" "$@" \
	>"$rec/stdout" 2>"$rec/stderr" </dev/null || rc=$?
# timeout -s KILL reports the kill as 137 (128 + 9).
if [ "$rc" -eq 137 ]; then
	echo after >"$rec/hang"
	# The shell's own "Killed" note lands in the redirected stderr.
	sed -i '${/^Killed$/d}' "$rec/stderr"
	echo "$0: $name timed out; recorded as hanging" >&2
fi
echo "$rc" >"$rec/exit"
[ -s "$rec/stderr" ] || rm -f "$rec/stderr"
[ -s "$rec/stdout" ] || rm -f "$rec/stdout"
echo "$rec"
