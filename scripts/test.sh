#!/usr/bin/env bash
# The whole test suite (what `make test` and CI run): installs what it needs, builds the
# kernels, then runs the C tests (ctest), the linters and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
scripts/build-kernels.sh build/kernels
(cd build/kernels && ctest --output-on-failure -j 2)
.venv/bin/ruff check workflow tests
.venv/bin/snakefmt --check Snakefile workflow/rules
.venv/bin/pytest -ra tests "$@"
