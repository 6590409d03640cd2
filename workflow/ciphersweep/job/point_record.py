"""The records a bench job writes for its point: the kernel's records completed with
what only the orchestrator knows, or ONE failure record with the reason, written
atomically to the point's raw file."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ciphersweep.core import atomic
from ciphersweep.core.record_fields import GPU
from ciphersweep.job import build as cs_build
from ciphersweep.job import provenance as cs_prov
from ciphersweep.job.spec import RunSpec
from ciphersweep.plan.sweep import Point


def read_image_digest(digest_file: str | None) -> str | None:
    """``sha256:<hex>`` from an image's digest file (``<hex>  <file>``); None without."""
    if not digest_file or not os.path.exists(digest_file):
        return None
    text = Path(digest_file).read_text().split()
    if not text:
        return None
    d = text[0]
    return d if d.startswith("sha256:") else f"sha256:{d}"


def failure_record(
    point: Point, spec: RunSpec, reason: str, launch_line: str | None = None
) -> dict[str, Any]:
    """The one record of a point whose run failed, with the reason."""
    return {
        "schema": 1,
        "status": "failed",
        "reason": reason,
        "backend": point.backend,
        "impl": point.impl,
        "cipher": point.cipher,
        "mode": point.mode,
        "op": point.op,
        "bytes": point.size_bytes,
        "ranks": point.ranks,
        "threads": point.threads,
        GPU: point.gpus,
        "block_threads": point.block_threads,
        "rep": None,
        "t_total": None,
        "t_compute": None,
        "verified": False,
        "joules": None,
        "energy_source": None,
        "host": socket.gethostname(),
        "timestamp": cs_prov.utc_now(),
        "launch_line": launch_line,
    }


def orchestrator_fields(
    point: Point, spec: RunSpec, launch_line: str, oversub: bool
) -> dict[str, Any]:
    """What the orchestrator adds to every record of a point."""
    return {
        **cs_prov.orchestrator_fields(
            campaign=spec.campaign,
            point=point.id,
            image=spec.image,
            runtime=spec.runtime,
            launch_line=launch_line,
            git_rev=spec.git_rev,
            digest=read_image_digest(spec.image_digest_file),
        ),
        "size_label": point.size_label,
        "input_name": point.input_name,
        "oversubscribed": oversub,
        "build_variant": point.variant or None,
        # the native build's settings (a user's kernel has its own: job.kernel_user)
        **(
            cs_build.read_info(spec.kernel_dir)
            if spec.runtime == "none" and point.backend != "user"
            else {}
        ),
        "attempt": spec.attempt,
        "plan_key": spec.plan_key,
    }


def fill(rec: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``rec`` with the fields of ``extra`` it lacks (or holds as null); in place."""
    for k, v in extra.items():
        if rec.get(k) is None:
            rec[k] = v
    return rec


def completed(
    records: list[dict[str, Any]], extra: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """A kernel's records marked ``ok`` (unless they say otherwise) and filled."""
    for rec in records:
        rec.setdefault("status", "ok")
        fill(rec, extra)
    return records


def with_code_path(
    records: list[dict[str, Any]], env: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Every record's fingerprint completed with ``env``: the code-path variables
    (:func:`ciphersweep.backends.codepath.select`) the kernel was launched with; in place."""
    for rec in records:
        fp = rec.get("fingerprint")
        if isinstance(fp, dict):
            fp["code_path_env"] = dict(env)
    return records


def write(path: str, records: list[dict[str, Any]]) -> None:
    """The point's raw file, one JSON record a line, replaced atomically: it holds
    the new records in full or its previous ones (ciphersweep.core.atomic)."""
    atomic.write_text(
        path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    )
