#!/usr/bin/env bash
# Install the Debian/Ubuntu packages cmax needs (listed in .ci/packages).
# Uses sudo only when not already root.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=$(grep -v '^#' .ci/packages | tr '\n' ' ')
as_root=()
[ "$(id -u)" = 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
# shellcheck disable=SC2086
"${as_root[@]}" apt-get install -y -qq --no-install-recommends $pkgs
