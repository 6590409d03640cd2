#!/usr/bin/env bash
# Installs what ciphersweep needs: missing apt packages (as root; otherwise prints the exact
# command and stops) and the pinned Python environment in .venv/.
# Usage: scripts/setup.sh [run|test]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-run}
lists=(scripts/apt-run.txt)
[ "$what" = test ] && lists+=(scripts/apt-test.txt)

missing=()
for pkg in $(grep -hv '^#' "${lists[@]}"); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # A temporary policy-rc.d keeps the packages' own services (munge, mariadb, slurm)
    # from starting: the tests start private instances of their own.
    own_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
      own_policy=1
    fi
    # (debconf's "delaying package configuration" notes say nothing a user can act on)
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      2> >(grep -v '^debconf: ' >&2)
    if [ "$own_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  else
    echo "setup: missing packages; run this, then try again:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# The interpreter: Debian's python3 (apt-run.txt installs its venv module), built with
# profile-guided and link-time optimisation: every Snakemake process of a campaign
# starts about a fifth faster on it than on a plain source build of the same Python.
# PYTHON=... picks another; a .venv made by another interpreter is made again.
py=${PYTHON:-python3}
if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; fi
# The installer: uv (PyPI, pinned) where it can be had, about ten times faster than pip
# at filling a fresh .venv from its cache; pip otherwise.
UV_VERSION=0.13.9
pip_install() { # pip_install ARG... (into .venv)
  if [ -x .venv/bin/uv ]; then
    # (bytecode compiled now, as pip does: where PYTHONDONTWRITEBYTECODE is set, no
    # process would ever write it, and each would compile every module it imports)
    .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python "$@"
  else
    .venv/bin/pip install -q "$@"
  fi
}
stamp=.venv/.requirements.sha
want=$({ cat requirements.txt; readlink -f "$(command -v "$py")"; "$py" --version; } | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: creating .venv (pinned requirements.txt)"
  "$py" -m venv --clear .venv
  .venv/bin/pip install -q --disable-pip-version-check "uv==$UV_VERSION" 2>/dev/null ||
    echo "setup: uv $UV_VERSION not available; installing with pip"
  pip_install -r requirements.txt
  echo "$want" > "$stamp"
fi

# The console of a campaign (progress line and summary): a Snakemake logger plugin kept
# in this repository, installed into .venv when its sources change.
plugin=plugins/snakemake-logger-plugin-ciphersweep
pstamp=.venv/.logger-plugin.sha
pwant=$(find "$plugin" -name '*.py' -o -name pyproject.toml | sort | xargs cat | sha256sum | cut -d' ' -f1)
if [ "$(cat "$pstamp" 2>/dev/null)" != "$pwant" ]; then
  echo "setup: installing the console plugin ($plugin)"
  pip_install --no-deps "./$plugin"
  rm -rf "$plugin/build" "$plugin"/*.egg-info
  echo "$pwant" >"$pstamp"
fi
# A Ctrl-C in Snakemake's own start, before the workflow is read and installs its
# one-line ending, reads as one line too, not as a traceback of Snakemake's imports:
# the console plugin's hook (its module `ciphersweep_interrupted`), started with each `snakemake`
# process of .venv by a .pth file (Python's site mechanism; any other command of .venv
# only compares its name, and imports nothing for it).
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cat >"$site/ciphersweep-interrupted.pth" <<'EOF'
import os, sys; os.path.basename((getattr(sys, "argv", None) or [""])[0]) == "snakemake" and __import__("importlib.util").util.find_spec("ciphersweep_interrupted") and __import__("ciphersweep_interrupted").install()
EOF

# The workflow's own package, compiled as the installed ones are: where
# PYTHONDONTWRITEBYTECODE is set, every Snakemake process (each run, each job under
# Slurm) would otherwise compile every module it imports (only what changed is compiled
# again here; a module changed since is compiled in memory, never trusted stale).
.venv/bin/python -m compileall -q workflow/ciphersweep >/dev/null
