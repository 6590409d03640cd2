#!/usr/bin/env bash
# Builds a ciphersweep image from a recipe (containers/<recipe>.def).
#
#   containers/build-image.sh [OPTIONS] RECIPE OUT_IMAGE
#
# RECIPE: a name (cpu, cuda) or a path to a .def file. Writes OUT_IMAGE and
# OUT_IMAGE.sha256 ("<hex>  <file name>", as sha256sum prints it; the image digest
# that goes into every result record is "sha256:<hex>").
#
# Two builders, the same recipe:
#   apptainer   `apptainer build ARGS --build-arg VERSION=.. --build-arg GIT_REVISION=..
#               OUT RECIPE` (ARGS default --fakeroot). OUT is a SIF file.
#   mmdebstrap  no Apptainer and no registry: `mmdebstrap --variant=minbase` Debian 12
#               root filesystem with containers/packages.txt included, the recipe's
#               %files copied in, its %post and %test run inside with bwrap (no network),
#               then `mksquashfs`. OUT is a SquashFS image for `ch-run IMAGE -- CMD`;
#               when OUT ends in .sif, the SquashFS is wrapped into a SIF file with
#               siftool (containers/sif-wrap.sh: definition file, labels, the SquashFS
#               as primary system partition), the file Apptainer runs.
#               Needs root (or CAP_SYS_ADMIN for mmdebstrap's root mode).
# The default (auto): apptainer where the command exists, mmdebstrap where not (also
# for CIPHERSWEEP_RUNTIME=apptainer: the log says that the SIF is made without
# Apptainer); CIPHERSWEEP_RUNTIME=charliecloud -> mmdebstrap.
#
# Options (environment variable in brackets):
#   --builder auto|apptainer|mmdebstrap        [CIPHERSWEEP_IMAGE_BUILDER]  default auto
#   --apptainer-args "ARGS"                    [CIPHERSWEEP_APPTAINER_BUILD_ARGS] default --fakeroot
#   --sources FILE|URL  apt sources for mmdebstrap; repeatable [CIPHERSWEEP_APT_SOURCES,
#               space separated]. Default: the machine's own apt sources
#               (/etc/apt/sources.list and /etc/apt/sources.list.d/*) that name the suite;
#               mmdebstrap's built-in default mirror when there are none.
#   --compression zstd|gzip|xz                 [CIPHERSWEEP_SQUASHFS_COMP]  default zstd
#   --no-test   skip the recipe's %test        [CIPHERSWEEP_IMAGE_TEST=0]
#   --version V --git-revision R               default: from the repository
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
prog=build-image.sh
die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: [${SECONDS}s] $*"; }
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

builder=${CIPHERSWEEP_IMAGE_BUILDER:-auto}
apptainer_args=${CIPHERSWEEP_APPTAINER_BUILD_ARGS---fakeroot}
read -r -a sources <<<"${CIPHERSWEEP_APT_SOURCES:-}"
comp=${CIPHERSWEEP_SQUASHFS_COMP:-zstd}
run_test=${CIPHERSWEEP_IMAGE_TEST:-1}
version=${CIPHERSWEEP_VERSION:-}
gitrev=${CIPHERSWEEP_GIT_REVISION:-}
pos=()
while [ $# -gt 0 ]; do
  case "$1" in
    --builder) builder=$2; shift 2 ;;
    --apptainer-args) apptainer_args=$2; shift 2 ;;
    --sources) sources+=("$2"); shift 2 ;;
    --compression) comp=$2; shift 2 ;;
    --no-test) run_test=0; shift ;;
    --version) version=$2; shift 2 ;;
    --git-revision) gitrev=$2; shift 2 ;;
    -h|--help) usage ;;
    --) shift; pos+=("$@"); break ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) pos+=("$1"); shift ;;
  esac
done
[ ${#pos[@]} -eq 2 ] || usage
recipe=${pos[0]}
out=${pos[1]}
case "$recipe" in
  */*|*.def) ;;
  *) recipe=$here/$recipe.def ;;
esac
[ -f "$recipe" ] || die "no recipe $recipe"
recipe=$(cd "$(dirname "$recipe")" && pwd)/$(basename "$recipe")
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

# Project version and revision, recorded in the image's labels and image.json.
if [ -z "$version" ]; then
  version=$(sed -n 's/^__version__ *= *"\(.*\)".*/\1/p' "$root/workflow/ciphersweep/__init__.py" 2>/dev/null | head -1 || true)
  [ -n "$version" ] || version=$(sed -n 's/.*project([^)]*VERSION \([0-9][0-9.]*\).*/\1/p' "$root/kernels/CMakeLists.txt" 2>/dev/null | head -1 || true)
  [ -n "$version" ] || version=0.0.0
fi
if [ -z "$gitrev" ]; then
  gitrev=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  if [ "$gitrev" != unknown ] && [ -n "$(git -C "$root" status --porcelain -- kernels containers scripts/build-kernels.sh 2>/dev/null)" ]; then
    gitrev=$gitrev-dirty
  fi
fi

if [ "$builder" = auto ]; then
  # the campaign's container runtime decides where it is set (the workflow passes it)
  case "${CIPHERSWEEP_RUNTIME:-}" in
    apptainer)
      if command -v apptainer >/dev/null; then builder=apptainer; else
        builder=mmdebstrap
        say "apptainer is not installed: building the image without it (mmdebstrap + mksquashfs) and wrapping it into a SIF with siftool"
      fi ;;
    charliecloud) builder=mmdebstrap ;;
    *) if command -v apptainer >/dev/null; then builder=apptainer; else builder=mmdebstrap; fi ;;
  esac
fi

write_digest() {
  (cd "$(dirname "$out")" && sha256sum "$(basename "$out")" >"$(basename "$out").sha256")
  say "$out ($(du -h "$out" | cut -f1), sha256:$(cut -d' ' -f1 "$out.sha256"))"
}

deffile() { python3 "$here/deffile.py" --build-arg "VERSION=$version" --build-arg "GIT_REVISION=$gitrev" "$recipe" "$@"; }
deffile check

# ---------------------------------------------------------------------------------------
if [ "$builder" = apptainer ]; then
  command -v apptainer >/dev/null || die "--builder apptainer: apptainer is not installed"
  test_flag=()
  [ "$run_test" = 1 ] || test_flag=(--notest)
  # %files sources are relative to the repository root.
  cd "$root"
  # shellcheck disable=SC2086
  apptainer build --force $apptainer_args "${test_flag[@]}" \
    --build-arg "VERSION=$version" --build-arg "GIT_REVISION=$gitrev" "$out.tmp" "$recipe"
  mv -f "$out.tmp" "$out"
  write_digest
  exit 0
fi
[ "$builder" = mmdebstrap ] || die "unknown builder '$builder' (auto, apptainer, mmdebstrap)"

# ---------------------------------------------------------------------------------------
# Registry-free: mmdebstrap + bwrap + mksquashfs (+ siftool for a .sif).
# Missing tools are installed from their Debian packages as root (as scripts/setup.sh
# does for `make run`); otherwise the exact command is printed.
declare -A tool_pkg=([mmdebstrap]=mmdebstrap [bwrap]=bubblewrap [mksquashfs]=squashfs-tools [python3]=python3)
case "$out" in *.sif) tool_pkg[siftool]=siftool ;; esac
missing=()
for tool in "${!tool_pkg[@]}"; do
  command -v "$tool" >/dev/null || missing+=("${tool_pkg[$tool]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  [ "$(id -u)" -eq 0 ] || die "missing packages; run this, then try again: sudo apt-get install -y --no-install-recommends ${missing[*]}"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } \
    || die "apt-get could not install ${missing[*]}"
  for tool in "${!tool_pkg[@]}"; do
    command -v "$tool" >/dev/null || die "$tool is still not on PATH after installing ${tool_pkg[$tool]} (PATH=$PATH)"
  done
fi
[ "$(id -u)" -eq 0 ] || die "the registry-free build runs as root (mmdebstrap root mode, chroot-owned files)"

bootstrap=$(deffile header Bootstrap)
from=$(deffile header From)
case "$bootstrap:$from" in
  docker:debian:bookworm|docker:debian:12|docker:docker.io/library/debian:bookworm|debootstrap:*) suite=bookworm ;;
  *) die "$(basename "$recipe"): base '$bootstrap: $from' cannot be built without Apptainer (registry-free builds make Debian 12 images only)" ;;
esac

if [ ${#sources[@]} -eq 0 ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # only the machine's sources for this suite (word match: 'bookworm', 'bookworm-updates')
    grep -v '^[[:space:]]*#' "$f" | grep -Eq "(^|[[:space:]])$suite(-[a-z]+)?([[:space:]]|$)" && sources+=("$f")
  done
fi
aptopts=()
# Keep the machine's answer to Valid-Until (snapshot mirrors have expired Release files).
if [ "$(apt-config shell v Acquire::Check-Valid-Until 2>/dev/null | sed "s/^v='\(.*\)'$/\1/")" = false ]; then
  aptopts+=(--aptopt='Acquire::Check-Valid-Until "false"')
fi

mapfile -t pkgs < <(grep -v '^[[:space:]]*#' "$here/packages.txt" | tr -s ' \t' '\n' | grep -v '^$')
work=$(mktemp -d "$(dirname "$out")/.build-image.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
rootfs=$work/rootfs
say "mmdebstrap $suite (sources: ${sources[*]:-mmdebstrap default}) + ${#pkgs[@]} packages"
mmdebstrap --quiet --variant=minbase --include="$(IFS=,; echo "${pkgs[*]}")" \
  "${aptopts[@]}" "$suite" "$rootfs" "${sources[@]}"

# %files (sources relative to the repository root, like `apptainer build` run there)
while IFS=$'\t' read -r src dst; do
  [ -e "$root/$src" ] || die "%files: $src does not exist"
  mkdir -p "$rootfs$(dirname "$dst")"
  cp -fLr "$root/$src" "$rootfs$dst"
done < <(deffile files)

# What Apptainer would record: labels, environment, runscript, help.
mkdir -p "$rootfs/.singularity.d/env"
deffile labels >"$rootfs/.singularity.d/labels.json"
{ echo '#!/bin/sh'; deffile section environment; } >"$rootfs/.singularity.d/env/90-environment.sh"
{ echo '#!/bin/sh'; deffile section runscript; } >"$rootfs/.singularity.d/runscript"
deffile section help >"$rootfs/.singularity.d/runscript.help"
chmod 755 "$rootfs/.singularity.d/runscript" "$rootfs/.singularity.d/env/90-environment.sh"
# ch-run --set-env reads /ch/environment (KEY=VALUE lines)
mkdir -p "$rootfs/ch"
deffile environment >"$rootfs/ch/environment"

in_root() {  # run a recipe section inside the root filesystem, no network
  local name=$1 body
  body=$(deffile section "$name")
  [ -n "$body" ] || return 0
  say "running %$name"
  bwrap --bind "$rootfs" / --proc /proc --dev /dev --ro-bind /sys /sys --tmpfs /tmp --unshare-net \
    --unshare-ipc --unshare-uts --hostname ciphersweep-build --die-with-parent --clearenv \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --setenv HOME /root --setenv LC_ALL C --setenv APPTAINER_ROOTFS / \
    --chdir / /bin/sh -ec "$body"
}
in_root post
[ "$run_test" = 1 ] && in_root test

# Directories and files ch-run binds into a container.
mkdir -p "$rootfs"/{dev,proc,sys,tmp,home,mnt,var/tmp}
chmod 1777 "$rootfs/tmp" "$rootfs/var/tmp"
: >"$rootfs/etc/resolv.conf"
echo localhost >"$rootfs/etc/hostname"   # not the build host's name
[ -e "$rootfs/etc/hosts" ] || printf '127.0.0.1 localhost\n' >"$rootfs/etc/hosts"
rm -rf "${rootfs:?}"/var/cache/apt/* "${rootfs:?}"/var/lib/apt/lists/* "${rootfs:?}"/tmp/* "${rootfs:?}"/dev/*

say "mksquashfs ($comp)"
mksquashfs "$rootfs" "$work/image.sqfs" -comp "$comp" -noappend -quiet -no-progress \
  -processors "$(nproc)" >/dev/null
case "$out" in
  *.sif)
    deffile labels >"$work/labels.json"
    cp "$recipe" "$work/$(basename "$recipe")"
    say "siftool: SquashFS -> SIF"
    "$here/sif-wrap.sh" "$work/image.sqfs" "$work/$(basename "$recipe")" "$work/labels.json" "$work/image.sif"
    mv -f "$work/image.sif" "$out" ;;
  *) mv -f "$work/image.sqfs" "$out" ;;
esac
write_digest
