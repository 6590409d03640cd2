#!/usr/bin/env bash
# Wraps a SquashFS root file system into a SIF file, the way `apptainer build` lays
# one out, with Debian's siftool (no Apptainer needed):
#
#   containers/sif-wrap.sh SQUASHFS RECIPE LABELS_JSON OUT.sif
#
# Data objects, in Apptainer's order: the definition file (type Def.FILE), the labels
# as a JSON object named labels.json (JSON.Generic), then the SquashFS as the primary
# system partition (FS, partition type PrimSys, file system Squashfs, architecture of
# this machine, e.g. amd64). Used by build-image.sh when it writes a .sif without
# Apptainer; `siftool list OUT.sif` shows the descriptors.
set -euo pipefail
prog=sif-wrap.sh
die() { echo "$prog: $*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: $0 SQUASHFS RECIPE LABELS_JSON OUT.sif"
sqfs=$1 recipe=$2 labels=$3 out=$4
command -v siftool >/dev/null || die "siftool is not installed (apt-get install siftool)"
for f in "$sqfs" "$recipe" "$labels"; do [ -f "$f" ] || die "$f: no such file"; done
[ "$(head -c 4 "$sqfs")" = hsqs ] || die "$sqfs: not a SquashFS image"

# siftool's architecture codes (siftool add --help)
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
case "$arch" in
  i386 | i686) code=1 ;;
  amd64 | x86_64) code=2 ;;
  armhf | armel | arm*) code=3 ;;
  arm64 | aarch64) code=4 ;;
  ppc64) code=5 ;;
  ppc64el | ppc64le) code=6 ;;
  s390x) code=11 ;;
  riscv64) code=12 ;;
  *) die "architecture '$arch' has no SIF code here" ;;
esac

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
rm -f "$tmp"
siftool new "$tmp" >/dev/null
siftool add "$tmp" "$recipe" --datatype 1 --groupid 1 --filename "$(basename "$recipe")" >/dev/null
siftool add "$tmp" "$labels" --datatype 6 --groupid 1 --filename labels.json >/dev/null
siftool add "$tmp" "$sqfs" --datatype 4 --groupid 1 --parttype 2 --partfs 1 --partarch "$code" \
  --filename rootfs.squashfs >/dev/null
mv -f "$tmp" "$out"
trap - EXIT
echo "$prog: $out: definition file, labels.json and the SquashFS ($arch) as primary system partition"
