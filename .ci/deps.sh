#!/bin/sh
# Installs the Debian packages named in $DEB that are missing: with apt-get when root, otherwise prints the command.
missing=""
for p in $DEB; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "trueline: installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || { echo "trueline: apt-get install failed for:$missing" >&2; exit 1; }
else
  echo "trueline: missing packages:$missing" >&2
  echo "  run: sudo apt-get install$missing" >&2
  exit 1
fi
