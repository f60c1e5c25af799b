#!/bin/sh
# mkbin.sh CMD_DIR FAKECMD OUT_BIN_DIR
#
# Makes OUT_BIN_DIR hold one symlink "<name> -> FAKECMD" for every recorded
# command CMD_DIR/<name>/, so that PATH=OUT_BIN_DIR runs fakecmd for exactly
# the tools the fixture has and "not found" for every other one. Stale links
# from an earlier run are removed first; an empty or missing CMD_DIR gives an
# empty bin dir (a host with no tools at all).
set -eu

if [ $# -ne 3 ]; then
	echo "usage: $0 CMD_DIR FAKECMD OUT_BIN_DIR" >&2
	exit 2
fi
cmd_dir=$1
fakecmd=$2
out=$3

if [ ! -x "$fakecmd" ] || [ -d "$fakecmd" ]; then
	echo "$0: $fakecmd is not an executable" >&2
	exit 2
fi
# Links must keep working whatever the test's working directory is.
case $fakecmd in
/*) ;;
*) fakecmd=$(cd "$(dirname "$fakecmd")" && pwd)/$(basename "$fakecmd") ;;
esac

# Only ever clear a directory this script made: a wrong or empty variable in
# a caller (OUT_BIN_DIR "/bin") must not delete a system's symlinks.
case $out in
"" | / | /bin | /bin/ | /usr/bin | /usr/bin/ | /sbin | /usr/sbin | /usr/local/bin)
	echo "$0: refusing to use $out as a fake bin directory" >&2
	exit 2
	;;
esac
if [ -d "$out" ] && [ ! -e "$out/.cmax-fakebin" ] && [ -n "$(ls -A "$out")" ]; then
	echo "$0: $out is not empty and was not made by mkbin.sh: refusing to clear it" >&2
	exit 2
fi
mkdir -p "$out"
: >"$out/.cmax-fakebin"
for l in "$out"/* "$out"/.[!.]*; do
	if [ -L "$l" ]; then
		rm -f "$l"
	fi
done
if [ -d "$cmd_dir" ]; then
	for d in "$cmd_dir"/*/; do
		[ -d "$d" ] || continue
		name=$(basename "$d")
		ln -s "$fakecmd" "$out/$name"
	done
fi
