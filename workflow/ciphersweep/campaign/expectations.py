"""What each point of a campaign expects, and which points are measured again: the
planning half of :class:`ciphersweep.campaign.model.Campaign`.

A point's expected fingerprint (ciphersweep.plan.fingerprint), its input stamp and plan
key, the judgement of its raw file (ciphersweep.verdict.admission: replanned, pending,
its attempt token), and what its pack's bench job reads and is keyed by. Every answer
is worked out the first time a job's parameters ask for it and kept for the run (one
campaign per process); the raw files are read then, never while the workflow is parsed.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ciphersweep.backends import codepath as cs_codepath
from ciphersweep.campaign import plan_summary as cs_plan_summary
from ciphersweep.core import digest as cs_digest
from ciphersweep.core import paths as cs_paths
from ciphersweep.job import build as cs_build
from ciphersweep.job import launch as cs_launch
from ciphersweep.job import packs as cs_packs
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.plan import user_kernels as cs_user
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict import admission as cs_admission
from ciphersweep.verdict import records as cs_records

if TYPE_CHECKING:
    from ciphersweep.campaign.model import Campaign

# (level, message, extra) -> None: the run's log (Snakemake's logger in the workflow)
Say = Callable[..., None]
F = TypeVar("F", bound=Callable[..., Any])


def kept(fn: F) -> F:
    """A method whose answer for the same arguments is worked out once and kept on
    its campaign (one per process, kept for the run)."""

    @functools.wraps(fn)
    def once(self: Any, *args: Any) -> Any:
        memo = self.__dict__.setdefault("_kept", {})
        key = (fn.__name__, args)
        if key not in memo:
            memo[key] = fn(self, *args)
        return memo[key]

    return once  # type: ignore[return-value]


class Expectations:
    """The planning methods of a :class:`~ciphersweep.campaign.model.Campaign`."""

    # ------------------------------------------------------------------ builds
    @kept
    def kernel_digest(self: Campaign, variant: str = "") -> str | None:
        """The build key of a native build (sources, build script, its effective
        cmake arguments, flags and build environment: ciphersweep.job.build.
        key_settings): baked into its binaries, the bench rule's parameters and the
        build key every record of the build must carry. Hashed the first time a job's
        parameters ask for it (never for --list, --lint or a job of another build)."""
        if self.runtime != "none":
            return None
        args = cs_build.cmake_args(self.cfg["build"], self.variants.get(variant))
        return cs_fp.build_key(
            self.kernel_sources, cs_build.key_settings(args), root=self.place.project
        )

    def kernel_digests(self: Campaign) -> dict[str, str | None]:
        """Every build's key, by variant (the history records them)."""
        return {v: self.kernel_digest(v) for v in self.builds}

    @kept
    def built_here(self: Campaign, variant: str) -> bool:
        """Whether a build's binaries were made by the build rule (they carry its key)."""
        return cs_build.info_build_key(self.build_dir(variant)) is not None

    def planned_build_key(self: Campaign, variant: str) -> str | None:
        """The build key a native build's binaries must carry: this campaign's, for a
        build the workflow made (None: one made outside it carries none)."""
        return self.kernel_digest(variant) if self.built_here(variant) else None

    # ------------------------------------------------------------------ fingerprints
    @kept
    def plan_platform(self: Campaign) -> cs_launch.Platform:
        """How the points are launched, as far as the environment their kernels get
        depends on it (ciphersweep.job.launch.kernel_env)."""
        cont, cluster = self.cfg["platform"]["container"], self.cfg["cluster"]
        return cs_launch.Platform(
            mpi_launcher=cluster["mpi_launcher"],
            mpirun_args=list(cluster["mpirun_args"]),
            mpi_network=cluster["mpi_network"],
            runtime=self.runtime,
            image=self.image,
            binds=list(cont["bind"]),
            cwd=str(self.place.cwd),
        )

    @kept
    def planned_env(
        self: Campaign, backend: str, impl: str, added: tuple[tuple[str, str], ...]
    ) -> tuple[Any, dict[str, str]]:
        """(the code-path variables, the whole environment) a kernel of ``backend``
        and ``impl`` gets, launched with ``added`` (what its launch line adds): the
        same for every point of one kind, worked out once."""
        env = {**self.place.env, **dict(added)}
        return cs_codepath.select(backend, impl, env), env

    def expected_fingerprint(self: Campaign, point: Point) -> cs_fp.Expected:
        """What the records of a point must show: the build key of a build the
        workflow made, the binary (or Python kernel, or program) on disk, the input's
        bytes, the image, the planned shape, the code-path variables of the environment
        its kernel is launched with and the versions of its libraries."""
        key, binary = None, None
        native = self.runtime == "none"
        if point.backend == "user":
            binary, key = point.program, point.build_key
        elif native and point.backend == "command":
            binary = cs_fp.program_file(point.command)
        elif native and point.backend in cs_config.PY_BACKENDS:
            binary = str(cs_paths.python_kernel(f"kernel_{point.backend}"))
        elif native:
            binary = self.kernel_binary(point.backend, point.variant)
            key = self.planned_build_key(point.variant)
        data = self.input_file(point)
        launched = cs_launch.build(point, self.plan_platform(), [])
        added = tuple(sorted(launched.env.items()))
        code_path, env = self.planned_env(point.backend, point.impl, added)
        libraries = None
        if native:
            libraries = cs_codepath.planned_libraries(
                point.backend, point.impl, env, self.place.python, binary
            )
        return cs_fp.Expected(
            point,
            build_key=key,
            binary=binary,
            input_path=data,
            input_digest=cs_fp.digest_file(data) if point.input_path is None else None,
            image_digest=f"{self.image}.sha256" if self.image else None,
            code_path_env=code_path,
            libraries=libraries,
        )

    @kept
    def expected(self: Campaign, pid: str) -> cs_fp.Expected:
        """A point's expected fingerprint, made when a job first asks for it."""
        return self.expected_fingerprint(self.points[pid])

    def expected_all(self: Campaign) -> dict[str, cs_fp.Expected]:
        """Every point's expected fingerprint (gather judges every raw file by it)."""
        return {pid: self.expected(pid) for pid in self.points}

    def input_stamp(self: Campaign, point: Point) -> str | None:
        """A point's input stamp (in its plan key). A user's own file: its size,
        modification time and change time. Snakemake re-runs a job only for a NEWER
        input; a file replaced by other bytes with an older or the same modification
        time (cp -p, rsync -t, touch -r) changes this stamp (its change time cannot be
        set back), so its points are measured again in this run. The bytes themselves
        are compared with the records' input digest at gather. A generated input: None
        while its `.sha256` holds, else the digest of the bytes in its place. Worked
        out once per input file, which a size's points share."""
        return self.file_stamp(point.input_path, self.input_file(point))

    @kept
    def file_stamp(self: Campaign, user_path: str | None, data: str) -> str | None:
        """:meth:`input_stamp` of a user's file ``user_path``, or (None) of the
        generated input ``data``."""
        if user_path is None:
            return cs_fp.generated_stamp(data)
        try:
            st = os.stat(user_path)
        except OSError:
            return None
        return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"

    def launch_settings(self: Campaign, point: Point) -> dict[str, Any]:
        """The campaign's settings a point's launch depends on: the energy mode, and
        an MPI-launched point's launcher, mpirun arguments and network (the same
        wherever it is planned: not the launch line, which a Slurm job builds otherwise
        than the planning)."""
        cluster = self.cfg["cluster"]
        mpi = ("mpi_launcher", "mpirun_args", "mpi_network")
        return {
            "energy": self.cfg["platform"]["energy"],
            **({k: cluster[k] for k in mpi} if point.mpi_launched else {}),
        }

    @kept
    def plan_key(self: Campaign, pid: str) -> str:
        """What a point is planned with besides its fingerprint (kept in its records):
        a Python-side point's without the native build's key, which it does not run."""
        point = self.points[pid]
        native = point.backend in cs_config.KERNEL_BINARIES
        return cs_fp.plan_key(
            point.as_dict(),
            self.input_stamp(point),
            self.kernel_digest(point.variant) if native else None,
            self.launch_settings(point),
        )

    # ------------------------------------------------------------------ replanning
    @kept
    def gathered(self: Campaign) -> tuple[Any, int]:
        """(the points the campaign's summary.csv names, its modification time) or
        (None, 0): read once, when a raw file is missing."""
        path = f"{self.res}/summary.csv"
        try:
            return cs_records.summarized_points(path), os.stat(path).st_mtime_ns
        except (OSError, KeyError, ValueError):
            return None, 0

    @kept
    def pack_listing(self: Campaign, pack: str) -> tuple[list[str] | None, int]:
        """(the points a pack's list names, the list's modification time) or (None, 0)."""
        path = self.pack_file(pack)
        try:
            return cs_packs.listed(path), os.stat(path).st_mtime_ns
        except OSError:
            return None, 0

    @kept
    def raw_listing(self: Campaign) -> frozenset[str] | None:
        """The names in the campaign's raw folder, listed once, as the run process
        plans every point (None in a job process, which asks about its pack's points
        only: each of their files is looked up instead)."""
        if not self.main:
            return None
        try:
            return frozenset(os.listdir(os.path.dirname(self.raw_file(""))))
        except FileNotFoundError:
            return frozenset()
        except OSError:
            return None  # each file is looked up, and says why it cannot be read

    def has_raw(self: Campaign, pid: str) -> bool:
        """Whether the point's raw file is there (as the run is planned)."""
        names, raw = self.raw_listing(), self.raw_file(pid)
        return os.path.exists(raw) if names is None else os.path.basename(raw) in names

    @kept
    def replan(self: Campaign, pid: str) -> tuple[str, str | None]:
        """(attempt token, why the point runs again or None) of a point's raw file:
        read and judged once. A raw file removed after its pack (or, its pack's list
        removed too, a gather) saw it measured is measured again (admission.lost)."""
        raw = self.raw_file(pid)
        if not self.has_raw(pid):
            pack = self.pack_listing(self.pack_of[pid])
            gone = cs_admission.lost(raw, *pack, *self.gathered())
            if gone is not None:
                return gone, f"{raw}: its records are gone (it had been measured)"
            return cs_admission.FIRST, None  # never measured: nothing to judge
        return cs_admission.replan(raw, self.points[pid], self.expected(pid))

    def point_inputs(self: Campaign, point: Point) -> tuple[list[str], list[str]]:
        """(plain, aged) inputs of a point: the files whose being newer than its
        records measures it again, and the kernel binary it runs, whose content its
        records' fingerprint compares instead (ancient)."""
        data = self.input_file(point)
        if self.runtime != "none":
            return [str(self.image), data], []
        if point.backend == "user":
            return [data], [cs_user.kernel_file(point.program, point.build_key)]
        if point.backend in cs_config.PY_BACKENDS:
            return [str(cs_paths.python_kernel(f"kernel_{point.backend}")), data], []
        return [data], [self.kernel_binary(point.backend, point.variant)]

    @kept
    def pending(self: Campaign, pid: str) -> str | None:
        """Why the point is measured in this run (None: its records hold)."""
        if not self.has_raw(pid):  # (admission.pending's answer, without a look-up)
            return self.replan(pid)[1] or cs_admission.NO_RECORDS
        point = self.points[pid]
        made = self.generated_input(point)
        return cs_admission.pending(
            self.raw_file(pid),
            self.replan(pid)[1],
            functools.partial(self.plan_key, pid),
            [f for f in self.point_inputs(point)[0] if f != made],
        )

    def attempt(self: Campaign, pid: str) -> str:
        """The bench rule's attempt token of a point: unchanged while its raw file
        holds admitted records of the planned fingerprint, new when it holds a
        failure, is damaged or shows another build, binary, input or shape, so
        Snakemake's params rerun trigger runs exactly those points again, in this run
        (nothing is deleted). A point still to be measured after a run that did not
        measure it (--touch, an interrupted or failed bench job) gets a new one."""
        listed_at = self.pack_listing(self.pack_of[pid])[1]
        return cs_admission.attempt(self.replan(pid)[0], self.pending(pid), listed_at)

    # ------------------------------------------------------------------ the bench jobs
    def pack_inputs(self: Campaign, pack: str) -> tuple[list[str], list[str]]:
        """(plain, ancient) inputs of a pack's bench job: its points' input data and
        the one kernel binary (or the image) each runs, and the input generator of the
        generated inputs, which the first bench job that needs one makes (ciphersweep.
        job.runner.ensure_input; one job per size would be thousands of jobs in a wide
        sweep). A binary rebuilt from the same sources (e.g. after one was removed)
        re-measures nothing: it is ancient while every point of the pack holds records
        of the planned fingerprint. Otherwise it is a plain input: Snakemake does not
        look at the own reasons (params, --forcerun) of jobs below a job that runs,
        only at their plain inputs. KeyError: no such pack."""
        plain, aged = set(), set()
        for pid in self.packs[pack]:
            point = self.points[pid]
            p, a = self.point_inputs(point)
            made = self.generated_input(point)
            plain.update(f for f in p if f != made)
            (plain if self.replan(pid)[1] else aged).update(a)
            if made is not None and self.runtime == "none":
                (plain if self.pending(pid) else aged).add(self.generator_binary())
        return sorted(plain), sorted(aged - plain)

    def pack_state(self: Campaign, pack: str) -> str:
        """The bench rule's `state` parameter: its points' attempt tokens and plan
        keys (a point whose records no longer hold changes it)."""
        text = "\n".join(
            f"{p} {self.attempt(p)} {self.plan_key(p)}" for p in self.packs[pack]
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def pack_members(self: Campaign, pack: str) -> list[cs_packs.Member]:
        """The points of a pack, how each runs and why it is measured (job side)."""
        return [
            cs_packs.Member(
                self.points[pid], self.run_spec(self.points[pid]), self.pending(pid)
            )
            for pid in self.packs[pack]
        ]

    # ------------------------------------------------------------------ gather
    @kept
    def judged(self: Campaign) -> str:
        """gather's `judged` parameter: every point's attempt token, so that a raw
        file judged otherwise than at the last gather always brings the tables up to
        date. Every raw file is read here, once, when the DAG asks for gather's
        parameters (not for --list or --lint); the points that run again are named
        then, in the main process's log (``self.say``)."""
        if self.main and self.say is not None:
            self.plan_report(self.say, self.touch())
        text = "\n".join(f"{p} {self.attempt(p)}" for p in sorted(self.points))
        return hashlib.sha256(text.encode()).hexdigest()

    @kept
    def judge_code(self: Campaign) -> str:
        """gather's `judge_code` parameter: the digest of the code that admits records
        (ciphersweep.core.paths.verdict_sources), so that an upgrade which judges
        records otherwise brings the summary and the tables up to date."""
        files = [str(f) for f in cs_paths.verdict_sources()]
        return cs_digest.files_digest(files, root=self.place.project)

    def plan_report(self: Campaign, say: Say, touch: bool) -> None:
        """What this run measures, said once before any job: one warning counting the
        failed, damaged or changed points that run again, a screenful summing up what
        runs and why (campaign.plan_summary), a line per point to measure (one
        record; the console shows it with --verbose), and how many (the console's count). ``touch``:
        --touch marks the jobs done and measures nothing (the next run measures them).
        ``say(level, message, extra)``."""
        todo = {p: self.pending(p) for p in self.points if self.pending(p)}
        again = [p for p, why in todo.items() if why != cs_admission.NO_RECORDS]
        if again:
            more = f" ... ({len(again) - 5} more)" if len(again) > 5 else ""
            say(
                "warning",
                f"ciphersweep: {len(again)} failed, damaged or changed point(s) "
                + ("left to the next run (--touch measures none): " if touch else "")
                + ("" if touch else "run again: ")
                + " ".join(again[:5])
                + more,
                {},
            )
        for line in cs_plan_summary.lines(todo, self.points):
            say("info", f"ciphersweep: {line}", {"ciphersweep": "plan_summary"})
        if todo:  # one record of a line per point: 100,000 records took a second
            lines = (
                f"ciphersweep: to measure: {pid} ({why})" for pid, why in todo.items()
            )
            say("info", "\n".join(lines), {"ciphersweep": "pending"})
        n = 0 if touch else len(todo)
        say(
            "info",
            f"ciphersweep: {n} benchmark point{'' if n == 1 else 's'} to measure",
            {"ciphersweep": "plan", "points": n},
        )
