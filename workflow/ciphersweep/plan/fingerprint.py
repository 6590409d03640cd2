"""The fingerprint of a measurement: the ONE definition the kernels, the plan and
admission share.

Every record carries ``fingerprint``, written by the kernel itself (kernels/src/
fingerprint.c, :func:`ciphersweep.job.pykernel.fingerprint`): the SHA-256 of the binary
(or Python kernel, or command program) that ran, the build key and compile flags baked
into it when it was built, the SHA-256 of the input bytes it read, and the shape it
observed (ranks, threads, GPUs, cipher, impl, mode, op: the impl that ran, never
``auto``); the bench job adds the code-path environment variables the kernel was
launched with (``code_path_env``, :mod:`ciphersweep.backends.codepath`), and the
Python-side kernels the versions of the libraries doing their work (``libraries``).

The plan (:class:`Expected`, one per point) holds what each point's records must show:
the build key of its build (:func:`build_key`: sources, build script, cmake arguments
and flags), the digest of its input (a generated input's ``.sha256`` beside it; a
user's file hashed only when a record is checked), the digest of the binary on disk
and the planned shape, the code-path variables of the environment the point will be
launched with and the versions of its libraries as its interpreter imports them.
:func:`mismatch` names the first field that differs; admission then fails the point
and the same command measures it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ciphersweep import backends as registry
from ciphersweep.core.digest import files_digest

if TYPE_CHECKING:  # the sweep builds its user kernels' keys here (build_key)
    from ciphersweep.plan.sweep import Point

# Shape fields every fingerprint carries (besides the digests).
SHAPE = ("ranks", "threads", "gpus", "cipher", "impl", "mode", "op")
# Backends whose records name the cipher's mode as their library does (not checked;
# the cipher, which is, names it): ChaCha20's mode is "stream" there, the cipher's
# own name in the plan.
_LIBRARY_MODES = registry.where(library_mode=True)


def build_key(
    sources: list[str], args: list[str], root: str | os.PathLike[str] | None = None
) -> str:
    """``sha256:<hex>`` of what a native build is made from: the names (relative to
    ``root``, the project: a moved checkout keeps its keys) and bytes of its sources
    and build script, and its cmake arguments (the flags among them). The build rule
    bakes it into the binaries; the plan expects it in their records."""
    return files_digest(sources, " ".join(args), root)


@lru_cache(maxsize=1024)
def _sha256(path: str, size: int, mtime_ns: int, ctime_ns: int, ino: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """Hex SHA-256 of a file (None: not there), computed once per version of the
    file (its size, times and inode: the change time, which cannot be set back,
    tells other bytes with the old modification time kept)."""
    try:
        st = os.stat(path)
        return _sha256(str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    except OSError:
        return None


def program_file(argv: tuple[str, ...] | list[str]) -> str | None:
    """The file a command's argument list runs (PATH looked up), None: not found."""
    return shutil.which(argv[0]) if argv else None


def observed(
    binary: str | None,
    data: bytes,
    shape: dict[str, Any],
    key: str | None = None,
    libraries: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The ``fingerprint`` a Python-side kernel writes: the same fields as the C
    kernels' (binary: the kernel module or the program it runs), and the versions of
    the libraries doing its work (:func:`ciphersweep.backends.codepath.library_versions`)."""
    return {
        "binary_sha256": file_sha256(binary) if binary else None,
        "build_key": key,
        "cflags": None,
        "input_sha256": hashlib.sha256(data).hexdigest(),
        **{k: shape.get(k) for k in SHAPE},
        **({"libraries": libraries} if libraries else {}),
    }


def digest_file(data_path: str | os.PathLike[str]) -> str:
    """Where a generated input's digest lies: ``<input>.sha256``."""
    return f"{data_path}.sha256"


def write_digest(data_path: str | os.PathLike[str]) -> None:
    """Write ``<input>.sha256`` (after generating the input; two bench jobs that make
    the same input at once each write a whole file)."""
    digest = file_sha256(data_path)
    tmp = f"{digest_file(data_path)}.tmp{os.getpid()}"
    Path(tmp).write_text(f"{digest}  {os.path.basename(data_path)}\n")
    os.replace(tmp, digest_file(data_path))


def read_digest(path: str | os.PathLike[str]) -> str | None:
    """The hex digest in a ``sha256sum``-style file (None: not there or empty)."""
    try:
        words = Path(path).read_text().split()
    except OSError:
        return None
    return words[0].removeprefix("sha256:") if words else None


@dataclass(frozen=True)
class Expected:
    """What the records of one point must show (None: not checked)."""

    point: Point
    build_key: str | None = None
    binary: str | None = None  # the program whose digest the records must carry
    input_path: str | None = None  # the input file the point reads
    input_digest: str | None = None  # its `.sha256` beside it (generated inputs)
    image_digest: str | None = None  # container runs: the image's `.sha256` file
    # the code-path variables of the environment it is launched with (backends.codepath)
    code_path_env: dict[str, str] | None = None
    libraries: dict[str, str] | None = None  # name -> version of its libraries

    def shape(self) -> dict[str, Any]:
        p = self.point
        want: dict[str, Any] = {
            "ranks": p.ranks,
            "threads": p.threads,
            "gpus": p.gpus,  # 0 but for the GPU backends (cuda, a user kernel's gpus)
            "cipher": p.cipher.lower(),
            "op": p.op,
        }
        if p.impl != "auto":  # the kernel names the impl it chose
            want["impl"] = p.impl
        if p.backend not in _LIBRARY_MODES:
            want["mode"] = p.mode
        return want

    def input_sha256(self, deep: bool) -> str | None:
        """The digest the input must have: its `.sha256` while that holds for the
        file (``sidecar_holds``), else (``deep``) the file hashed; None: not checked
        now."""
        if self.input_path is None:
            return None
        if self.input_digest is not None and sidecar_holds(
            self.input_digest, self.input_path
        ):
            return read_digest(self.input_digest)
        return file_sha256(self.input_path) if deep else None


def _not_older(digest: str, data: str) -> bool:
    """Whether a digest file was written after its input last changed: its
    modification time against the input's change time, which (unlike the modification
    time: ``touch -r``, ``cp -p``) cannot be set back."""
    try:
        return os.stat(digest).st_mtime_ns >= os.stat(data).st_ctime_ns
    except OSError:
        return False


def sidecar_holds(digest: str, data: str) -> bool:
    """Whether a generated input's `.sha256` names its bytes: written after the file
    last changed, or (the file touched since: a copy, ``touch -r``) equal to the
    file's digest, hashed then."""
    if _not_older(digest, data):
        return True
    want = read_digest(digest)
    return want is not None and want == file_sha256(data)


def generated_stamp(data: str) -> str | None:
    """The bench rule's ``input`` parameter for a generated input: None while its
    `.sha256` holds (or before it exists); the digest of other bytes put in its place,
    also with its old modification time kept, so that its points are measured again
    in the same run (Snakemake by itself re-runs a job only for a newer input)."""
    if not os.path.exists(data) or sidecar_holds(digest_file(data), data):
        return None
    return f"sha256 {file_sha256(data)}"


def _shown(v: Any) -> str:
    return "missing" if v is None else str(v)


def _digest_problem(name: str, got: Any, want: str | None) -> str | None:
    if want is None or got == want:
        return None
    return f"fingerprint: {name} {_shown(got)[:23]}, planned {want[:23]}"


@dataclass(frozen=True)
class Planned:
    """What every record of one raw file must carry, read from disk once for the file
    (the input's and the binary's digests, the image's): a finished campaign holds
    hundreds of records per point, and each used to read them again."""

    shape: dict[str, Any]
    digests: tuple[tuple[str, str | None], ...]  # fingerprint field, planned value
    image_digest: str | None
    # fingerprint field -> the variables or versions planned (None: not checked)
    tables: tuple[tuple[str, dict[str, str] | None], ...] = ()


def planned(exp: Expected, deep: bool = True) -> Planned:
    """The fingerprint ``exp`` plans (``deep``: see :func:`mismatch`)."""
    return Planned(
        shape=exp.shape(),
        digests=(
            ("build_key", exp.build_key),
            ("binary_sha256", None if deep else _binary(exp)),
            ("input_sha256", exp.input_sha256(deep)),
        ),
        image_digest=_image(exp),
        tables=(("code_path_env", exp.code_path_env), ("libraries", exp.libraries)),
    )


def mismatch(rec: dict[str, Any], exp: Expected, deep: bool = True) -> str | None:
    """The first fingerprint field of ``rec`` that is not what ``exp`` plans, as one
    line ("fingerprint: ranks 1, planned 2"); None when they match.

    ``deep`` (gather): an input file without a current ``.sha256`` is hashed.  Not
    ``deep`` (planning, before any job): the binary on disk must be the one that
    wrote the records, which then decides whether the point runs again; gather
    takes the records the jobs just wrote with the binary they ran."""
    return record_mismatch(rec, planned(exp, deep))


def record_mismatch(rec: dict[str, Any], plan: Planned) -> str | None:
    """:func:`mismatch` against a fingerprint already read (:func:`planned`)."""
    fp = rec.get("fingerprint")
    if not isinstance(fp, dict):
        return "fingerprint: missing (a record of an older kernel)"
    for name, want in plan.shape.items():
        got = fp.get(name)
        if (got.lower() if name == "cipher" and isinstance(got, str) else got) != want:
            return f"fingerprint: {name} {_shown(got)}, planned {want}"
    if "impl" not in plan.shape and fp.get("impl") in (None, "", "auto"):
        return f"fingerprint: impl {_shown(fp.get('impl'))}, planned the impl that ran"
    for name, table in plan.tables:
        bad = _table_problem(name, fp.get(name), table)
        if bad:
            return bad
    for name, want in plan.digests:
        bad = _digest_problem(name, fp.get(name), want)
        if bad:
            return bad
    return _digest_problem("image_digest", rec.get("image_digest"), plan.image_digest)


def _table_problem(name: str, got: Any, want: dict[str, str] | None) -> str | None:
    """The first variable or library of ``got`` (a record's) that is not ``want``
    (the plan's) as one line; None when they agree or ``want`` is not checked."""
    if want is None:
        return None
    if not isinstance(got, dict):
        return f"fingerprint: {name} missing (a record of an older kernel or runner)"
    for key in sorted(set(got) | set(want)):
        if got.get(key) != want.get(key):
            return (
                f"fingerprint: {name} {_entry(got, key)}, planned {_entry(want, key)}"
            )
    return None


def _entry(table: dict[str, str], key: str) -> str:
    return f"{key}={table[key]}" if key in table else f"{key} unset"


def _binary(exp: Expected) -> str | None:
    return file_sha256(exp.binary) if exp.binary else None


def _image(exp: Expected) -> str | None:
    d = read_digest(exp.image_digest) if exp.image_digest else None
    return f"sha256:{d}" if d else None


def plan_key(
    point: dict[str, Any],
    input_stamp: str | None,
    build: str | None,
    launch: dict[str, Any] | None = None,
) -> str:
    """What a point is planned with besides its fingerprint: the whole point (its
    repetitions, precision, time limit...), its input's stamp, its build's key and the
    launch settings it depends on (energy mode, MPI launcher and arguments). Its records
    keep it (``plan_key``); other parameters measure the point again."""
    text = _PLAN_TEXT.encode([point, input_stamp, build, launch])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# plan_key's text: json.dumps(..., sort_keys=True, default=str), its encoder made once
# (json.dumps makes one per call; a 100,000-point plan asks 100,000 times)
_PLAN_TEXT = json.JSONEncoder(sort_keys=True, default=str)
