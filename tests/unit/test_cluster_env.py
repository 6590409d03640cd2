"""The test cluster's env file is valid shell: bash's `source` and the tests' reader
give every key the value it was written with (node names separated by spaces, a
bracketed node list, paths)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support import ROOT, read_env_file

WRITER = ROOT / "tests" / "cluster" / "write-env.sh"
VALUES = {
    "CS_NODES": "node1 node2 node3 node4",
    "CS_NODE_LIST": "node[1-4]",
    "CS_STATE": "/tmp/cs state/x",
    "CS_NETNS_PREFIX": "cs1234",
    "CS_ODD": "a'b\"c$d`e\\f;g",
    "CS_EMPTY": "",
}


def test_env_file_sources_in_bash(tmp_path: Path) -> None:
    env = tmp_path / "env"
    subprocess.run(
        [str(WRITER), str(env), *(f"{k}={v}" for k, v in VALUES.items())], check=True
    )
    names = " ".join(VALUES)
    script = (
        f'set -eu; source "$1"; for k in {names}; do printf "%s\\0" "${{!k}}"; done'
    )
    proc = subprocess.run(
        ["bash", "-c", script, "_", str(env)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\0")[:-1] == list(VALUES.values())
    assert read_env_file(env) == VALUES


def test_the_cluster_scripts_write_and_read_it_that_way() -> None:
    up = (ROOT / "tests" / "cluster" / "up.sh").read_text()
    assert '"$here/write-env.sh" "$state/env"' in up
    assert 'cat > "$state/env"' not in up


def test_a_bad_key_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(WRITER), str(tmp_path / "env"), "cs nodes=x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "bad key" in proc.stderr
