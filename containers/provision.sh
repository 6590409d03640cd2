#!/usr/bin/env bash
# The one provisioning script of every ciphersweep image: both recipes (cpu.def,
# cuda.def) call it from %post, and the registry-free build (build-image.sh without
# Apptainer) runs the same %post inside its root filesystem.
#
# Runs as root inside the image. Expects the project files that the recipe's %files
# copies under $CIPHERSWEEP_SRC (default /opt/ciphersweep/src):
#   containers/provision.sh  containers/packages.txt  kernels/  scripts/build-kernels.sh
# Steps: install missing packages (none when mmdebstrap already included them), build
# the kernels with scripts/build-kernels.sh, run their tests (ctest), put aes-* on PATH
# (/usr/local/bin), write /opt/ciphersweep/image.json, remove caches and docs.
#
# Environment: CIPHERSWEEP_VERSION, CIPHERSWEEP_GIT_REVISION, CIPHERSWEEP_RECIPE
# (recorded in image.json), CIPHERSWEEP_CMAKE_ARGS (passed to cmake),
# CIPHERSWEEP_SKIP_CTEST=1 (build only), CIPHERSWEEP_EXTRA_PACKAGES (space separated).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

prefix=/opt/ciphersweep
src=${CIPHERSWEEP_SRC:-$prefix/src}
build=$prefix/build
log() { echo "provision: $*"; }

# --- packages -------------------------------------------------------------------
mapfile -t pkgs < <(grep -v '^[[:space:]]*#' "$src/containers/packages.txt" | tr -s ' \t' '\n' | grep -v '^$')
# shellcheck disable=SC2206
pkgs+=(${CIPHERSWEEP_EXTRA_PACKAGES:-})
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "all ${#pkgs[@]} packages present"
fi

# --- kernels --------------------------------------------------------------------
# mpirun refuses root unless told; the kernel tests run as root during a build.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1   # build hosts may have fewer cores than tests use
export CIPHERSWEEP_GIT_REVISION=${CIPHERSWEEP_GIT_REVISION:-unknown}
rm -rf "$build"
log "building kernels in $build"
"$src/scripts/build-kernels.sh" "$build"
if [ "${CIPHERSWEEP_SKIP_CTEST:-0}" != 1 ]; then
  log "running kernel tests"
  (cd "$build" && ctest --output-on-failure -j 2)
fi
kernels=()
for k in aes-seq aes-omp aes-mpi aes-openssl aes-cuda; do
  if [ -x "$build/$k" ]; then
    ln -sfn "$build/$k" "/usr/local/bin/$k"
    kernels+=("$k")
  fi
done
[ ${#kernels[@]} -gt 0 ] || { echo "provision: no kernel was built" >&2; exit 1; }
log "kernels on PATH: ${kernels[*]}"

# --- what is in this image -------------------------------------------------------
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
. /etc/os-release
{
  printf '{\n'
  printf '  "project": "ciphersweep",\n'
  printf '  "version": %s,\n' "$(json_str "${CIPHERSWEEP_VERSION:-unknown}")"
  printf '  "git_revision": %s,\n' "$(json_str "$CIPHERSWEEP_GIT_REVISION")"
  printf '  "recipe": %s,\n' "$(json_str "${CIPHERSWEEP_RECIPE:-unknown}")"
  printf '  "os": %s,\n' "$(json_str "$PRETTY_NAME")"
  printf '  "gcc": %s,\n' "$(json_str "$(gcc -dumpfullversion)")"
  printf '  "openmpi": %s,\n' "$(json_str "$(pkgver openmpi-bin)")"
  printf '  "pmix": %s,\n' "$(json_str "$(pkgver libpmix2)")"
  printf '  "openssl": %s,\n' "$(json_str "$(openssl version)")"
  printf '  "cuda": %s,\n' "$(json_str "$(command -v nvcc >/dev/null && nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p' || true)")"
  printf '  "kernels": [%s]\n' "$(printf '"%s",' "${kernels[@]}" | sed 's/,$//')"
  printf '}\n'
} > "$prefix/image.json"
log "wrote $prefix/image.json"

# --- smaller image ----------------------------------------------------------------
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/debconf/*-old \
       /usr/share/doc/* /usr/share/man/* /usr/share/info/* /usr/share/lintian \
       /var/log/apt/* /var/log/dpkg.log /root/.cache \
       /usr/share/locale/* /usr/bin/*lto-dump*
find "$build" -name '*.o' -delete
log "done"
