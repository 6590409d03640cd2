"""What the bench job needs besides the point: the bench rule's params, as one value."""

from __future__ import annotations

from dataclasses import dataclass, field

from ciphersweep.job.record_schema import FIRST


@dataclass
class RunSpec:
    """Everything the bench job needs besides the point."""

    campaign: str
    input_path: str
    out_path: str
    log_path: str
    kernel_dir: str = "build/kernels"
    runtime: str = "none"
    image: str | None = None
    image_digest_file: str | None = None
    binds: list[str] = field(default_factory=list)
    mpi_launcher: str = "srun"
    mpirun_args: list[str] = field(default_factory=list)
    mpi_network: str = ""
    energy: str = "auto"
    timeout_s: int = 600
    git_rev: str | None = None
    cwd: str = "."
    attempt: str = FIRST
    # what the point was planned with (plan.fingerprint.plan_key): kept in its records
    plan_key: str | None = None
    # the build key the binaries in kernel_dir must carry (None: not checked; a build
    # made outside the workflow carries none)
    build_key: str | None = None
    # a generated input: the generator's launch prefix (aes-seq, native or in the image)
    # and its log; empty for a user's file
    generator: list[str] = field(default_factory=list)
    generator_log: str = ""
