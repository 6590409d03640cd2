"""THE campaign object: everything the rules ask about a campaign, built once from its
validated config when the workflow is parsed (workflow/rules/common.smk holds one).

:class:`Campaign` is the points and their packs, where every file of the campaign lies,
the native builds, the image, how each point runs (its run spec) and what the run is
asked to make (tables, plots, comparisons, history). What each point's records must show,
and which points are measured again, is :class:`ciphersweep.campaign.expectations.
Expectations`, which it inherits. Nothing here acts when it is built: digests and raw
files are read the first time a job's parameters ask (and then kept for the run), so
that a dry run, ``--list`` or ``--lint`` reads nothing it does not need.

It knows nothing of Snakemake: the rules wrap its answers (``ancient``, ``report``,
``update``) and turn its failure lines into Snakemake's errors.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from ciphersweep.analysis import compare as cs_compare
from ciphersweep.analysis import plots as cs_plots
from ciphersweep.analysis.history import outputs as cs_history
from ciphersweep.analysis.tables import registry as cs_registry
from ciphersweep.campaign.expectations import Expectations, Say, kept
from ciphersweep.job import build as cs_build
from ciphersweep.job import busy as cs_busy
from ciphersweep.job import hostfacts as cs_hostfacts
from ciphersweep.job import launch as cs_launch
from ciphersweep.job import provenance as cs_prov
from ciphersweep.job.spec import RunSpec
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import resources as cs_resources
from ciphersweep.plan import sweep as cs_sweep
from ciphersweep.plan import user_kernels as cs_user
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict import records as cs_records

# Tables with a report section of their own: name -> (caption file, category); the
# others are in tables.rst's "Tables".
REPORT_SECTIONS = {
    "energy": ("../report/energy.rst", "Energy and CPU utilisation"),
    "cpu_util": ("../report/energy.rst", "Energy and CPU utilisation"),
    "provenance": ("../report/provenance.rst", "Provenance"),
}
HISTORY_TABLES = ("history", "regressions")
# rule gather's outputs, in results/<campaign>/: targets of the run, every one (a file
# that is no target and goes missing is not made again while the report is newer)
GATHERED = ("measurements.csv", "measurements.parquet", "failures.csv", "summary.csv")


@dataclass(frozen=True)
class Place:
    """Where the campaign runs: the project (the Snakefile's directory), the working
    directory and the environment the plan is made in (read once)."""

    project: Path
    cwd: Path
    env: Mapping[str, str]
    python: str  # the interpreter of the Python-side kernels


class Campaign(Expectations):
    """One campaign, planned (see the module's docstring)."""

    def __init__(
        self,
        cfg: dict[str, Any],
        place: Place,
        say: Say | None = None,
        main: bool = False,
        touch: Callable[[], bool] = lambda: False,
    ) -> None:
        """``say(level, message, extra)``: the run's log; ``main``: the run's main
        process (where the plan is reported); ``touch()``: whether this is a --touch
        run (asked when the plan is reported)."""
        self.cfg = cfg
        self.place = place
        self.say = say
        self.main = main
        self.touch = touch
        self.name: str = cfg["campaign"]
        self.res = f"results/{self.name}"
        cont = cfg["platform"]["container"]
        self.runtime: str = cont["runtime"]
        self.recipe: str = cont["recipe"]
        self.point_list: list[Point] = cs_sweep.expand(cfg)
        self.points = {p.id: p for p in self.point_list}
        cluster = cfg["cluster"]
        untimed = {p.id: cs_resources.resources(p, cluster) for p in self.point_list}
        resources = {
            pid: cs_resources.timed(r, cfg["timeout_s"]) for pid, r in untimed.items()
        }
        self.packs = cs_resources.packs(self.point_list, cluster, untimed)
        self.pack_of = {pid: n for n, members in self.packs.items() for pid in members}
        self.pack_resources = {
            name: cs_resources.pack_resources([resources[pid] for pid in members])
            for name, members in self.packs.items()
        }
        backends = {p.backend for p in self.point_list}
        # aes-seq also generates the inputs; the Python-side kernels are not built
        self.native_backends = sorted(
            (backends | {"seq"}) & set(cs_config.KERNEL_BINARIES)
        )
        # the user's kernels built by the workflow (build_user_kernel), by build dir
        self.user_builds = cs_user.builds(cfg)
        self.image_ext = "sif" if self.runtime == "apptainer" else "sqfs"
        # the campaign's image (rule build_image), used when runtime is not none
        self.image_file = f"{self.res}/images/{self.recipe}.{self.image_ext}"
        self.image = self.image_file if self.runtime != "none" else None
        # native builds: one per build.variants entry, or the one default build ("")
        self.variants = cs_build.variants(cfg["build"])
        self.builds = list(self.variants) or [""]
        # build name -> variant ("" = the default build), for the rules keyed by it
        self.build_of = {cs_build.build_name(v): v for v in self.builds}
        self.pack_files = [self.pack_file(name) for name in self.packs]
        self.raw_files = [self.raw_file(pid) for pid in self.points]
        self.report_file = f"{self.res}/report.html"
        self.history = cfg["history"]
        # the run's drawing process (ciphersweep.analysis.plots.drawing): every plot of
        # the run is drawn there; started as the records are gathered (nothing runs
        # until then), ended with the run
        self.drawing = cs_plots.Drawing()

    # ------------------------------------------------------------------ where
    def pack_file(self, name: str) -> str:
        """A pack's list (its bench job's output: what gather waits for)."""
        return f"{self.res}/packs/{name}.txt"

    def raw_file(self, pid: str) -> str:
        """A point's records, written by its pack's bench job."""
        return f"{self.res}/raw/{pid}.jsonl"

    def generated_file(self, name: str) -> str:
        """Where the generated input ``name`` is made."""
        return f"{self.res}/inputs/{name}.bin"

    def input_file(self, point: Point) -> str:
        if point.input_path is not None:
            return point.input_path
        return self.generated_file(point.input_name)

    def generated_input(self, point: Point) -> str | None:
        """A point's generated input (None: a user's file): made by the bench job
        that first needs it (ciphersweep.job.runner.ensure_input); the same bytes
        made again measure nothing again, other bytes are told by its input stamp."""
        if point.input_path is not None:
            return None
        return self.generated_file(point.input_name)

    # ------------------------------------------------------------------ builds
    @functools.cached_property
    def kernel_sources(self) -> list[str]:
        """Files whose change rebuilds the kernels (and images); listed once. Their
        digest is every native point's build key (a change re-measures them all): the
        kernels' tests are not among them, their CMake files aside (:func:`_builds`)."""
        src = self.place.project / "kernels"
        files = [
            str(f)
            for f in sorted(src.rglob("*"))
            if f.is_file() and _builds(f.relative_to(src))
        ]
        return [*files, str(self.place.project / "scripts" / "build-kernels.sh")]

    def build_dir(self, variant: str = "") -> str:
        return cs_build.build_dir(self.cfg["build"], variant)

    def kernel_binary(self, backend: str, variant: str = "") -> str:
        return f"{self.build_dir(variant)}/aes-{backend}"

    def generator_binary(self) -> str:
        """The input generator of a native campaign: aes-seq of the first build (the
        generated bytes depend only on size and seed)."""
        return self.kernel_binary("seq", self.builds[0])

    def size_files(self) -> list[str]:
        """Binary-size records of every native build (none for container campaigns)."""
        if self.runtime != "none":
            return []
        return [
            f"{self.res}/build/{cs_build.build_name(v)}.sizes.json" for v in self.builds
        ]

    @functools.cached_property
    def git_rev(self) -> str | None:
        return cs_prov.git_revision(self.place.project)

    @functools.cached_property
    def host_facts(self) -> dict[str, Any]:
        """The facts of the machine the analysis runs on, for the provenance of the
        run's tables and of its report alike: taken once (eight programs asked for
        their versions, a few hundredths of a second before the report)."""
        return cs_hostfacts.host_facts()

    # ------------------------------------------------------------------ how a point runs
    @kept
    def gen_spec(self) -> list[str]:
        """Launch prefix of the input generator: native aes-seq, or aes-seq in the image."""
        cont = self.cfg["platform"]["container"]
        native = self.runtime == "none"
        plat = cs_launch.Platform(
            runtime=self.runtime,
            image=self.image,
            binds=list(cont["bind"]),
            kernel_dir=self.build_dir(self.builds[0]) if native else cont["bin_dir"],
            cwd=str(self.place.cwd),
        )
        return cs_launch.generator_argv(plat)

    def run_spec(self, point: Point) -> RunSpec:
        """Everything a point's bench job needs besides the point."""
        cont, cluster = self.cfg["platform"]["container"], self.cfg["cluster"]
        native = self.runtime == "none"
        return RunSpec(
            campaign=self.name,
            input_path=self.input_file(point),
            out_path=self.raw_file(point.id),
            log_path=f"{self.res}/logs/bench/{point.id}.log",
            kernel_dir=self.build_dir(point.variant) if native else cont["bin_dir"],
            runtime=self.runtime,
            image=self.image,
            image_digest_file=f"{self.image}.sha256" if self.image else None,
            binds=list(cont["bind"]),
            mpi_launcher=cluster["mpi_launcher"],
            mpirun_args=list(cluster["mpirun_args"]),
            mpi_network=cluster["mpi_network"],
            energy=self.cfg["platform"]["energy"],
            timeout_s=cs_resources.kernel_timeout(
                point, cluster, self.cfg["timeout_s"]
            ),
            git_rev=self.git_rev,
            cwd=str(self.place.cwd),
            attempt=self.attempt(point.id),
            plan_key=self.plan_key(point.id),
            build_key=(
                self.planned_build_key(point.variant)
                if native and point.backend in cs_config.KERNEL_BINARIES
                else None
            ),
            generator=self.gen_spec() if point.input_path is None else [],
            generator_log=f"{self.res}/logs/inputs/{point.input_name}.log",
        )

    @kept
    def busy_monitor(self) -> cs_busy.Monitor:
        """The busy checks of this process's bench jobs (local runs: every pack; a
        Slurm job step: its own), made when the first pack runs."""
        return cs_busy.Monitor()

    def gather(self, output: Any, log: str | None) -> None:
        """The ``gather`` rule: every point's records judged and gathered
        (:func:`ciphersweep.verdict.records.gather_files`); the drawing process starts
        meanwhile, so that matplotlib is imported while they are."""
        self.drawing.start()
        cs_records.gather_files(
            self.raw_files, self.point_list, output, log, self.expected_all()
        )

    def point_done(self, pid: str, summary: dict[str, Any]) -> None:
        """A point of a bench job has its records: one line for the console."""
        reason = summary.get("reason")
        if self.say is not None:
            self.say(
                "info",
                f"ciphersweep: {pid}: "
                + (f"failed: {reason}" if reason else "measured"),
                {"ciphersweep": "point", "point": pid, "failure": reason},
            )

    # ------------------------------------------------------------------ what is made
    def table_files(self) -> list[str]:
        names = cs_registry.table_names(self.cfg, self.point_list)
        exts = ("csv", "md", "tex")
        return [f"{self.res}/tables/{n}.{ext}" for n in names for ext in exts]

    def gathered_files(self) -> list[str]:
        """What rule gather writes: the records as tidy tables and the summary."""
        return [f"{self.res}/{f}" for f in GATHERED]

    def plot_files(self, ext: str = "png") -> list[str]:
        names = cs_plots.plot_names(self.cfg, self.point_list)
        return [f"{self.res}/plots/{n}.{ext}" for n in names]

    def every_plot_file(self) -> list[str]:
        """Every plot in every format (PNG for the report, PDF and SVG beside)."""
        return [f for ext in cs_plots.FORMATS for f in self.plot_files(ext)]

    @staticmethod
    def table_section(path: str) -> tuple[str, str, str]:
        """(caption file, category, subcategory) of a table's CSV in the report."""
        name = os.path.basename(path).removesuffix(".csv")
        caption, category = REPORT_SECTIONS.get(
            name, ("../report/tables.rst", "Tables")
        )
        return caption, category, name

    @functools.cached_property
    def compare_files(self) -> list[str]:
        names = cs_compare.output_names(self.cfg)
        return [f"{self.res}/compare/{n}.{ext}" for n in names for ext in ("csv", "md")]

    @property
    def reference_check(self) -> bool:
        """Whether the run fails on a cell outside its performance reference."""
        comp = self.cfg["compare"]
        return bool(comp.get("references")) and comp["on_violation"] == "fail"

    def compare_inputs(self) -> list[str]:
        """The published data and claims files: a change to them re-runs the
        comparison."""
        comp = self.cfg["compare"]
        return [comp[k] for k in ("published", "claims") if k in comp] + (
            [f"{comp['campaign']}/summary.csv"] if "campaign" in comp else []
        )

    def compare_targets(self) -> list[str]:
        check = [f"{self.res}/compare/references.ok"] if self.reference_check else []
        return self.compare_files + check

    @property
    def history_marker(self) -> str:
        return f"{self.res}/history/appended.json"

    @property
    def history_check(self) -> str:
        return f"{self.res}/history/regressions.ok"

    @functools.cached_property
    def history_tables(self) -> dict[str, str]:
        """The history tables by output name (history_csv, regressions_md, ...)."""
        return {
            f"{t}_{ext}": f"{self.res}/tables/{t}.{ext}"
            for t in HISTORY_TABLES
            for ext in ("csv", "md", "tex")
        }

    @functools.cached_property
    def history_plots(self) -> list[str]:
        return [f"{self.res}/plots/history_trend.{e}" for e in cs_plots.FORMATS]

    def history_targets(self) -> list[str]:
        """What `all` asks for: the append, the history tables and plots (and the gate
        with history.fail_on_regression), when history.enabled."""
        if not self.history["enabled"]:
            return []
        gate = [self.history_check] if self.history["fail_on_regression"] else []
        return [
            self.history_marker,
            *self.history_tables.values(),
            *self.history_plots,
            *gate,
        ]

    def history_report(self) -> list[str]:
        """The report's history section (its inputs, when the history is on)."""
        if not self.history["enabled"]:
            return []
        tables = self.history_tables
        return [tables["history_csv"], tables["regressions_csv"], self.history_plots[0]]

    # ------------------------------------------------------------------ verdict lines
    @staticmethod
    def reference_warnings(path: str) -> list[str]:
        """The cells outside their performance reference, and those it cannot place."""
        if not os.path.exists(path):
            return []
        return [
            f"ciphersweep: reference: {x}" for x in cs_compare.check_references(path)
        ] + [
            f"ciphersweep: reference inconclusive: {x}"
            for x in cs_compare.inconclusive_references(path)
        ]

    @staticmethod
    def reference_failure(path: str) -> str | None:
        """compare.on_violation: fail: what fails the run (None: nothing)."""
        bad = cs_compare.check_references(path)
        if not bad:
            return None
        return (
            f"ciphersweep: {len(bad)} cell(s) outside their performance reference "
            "(compare.on_violation: fail; every table and comparison is kept):\n"
            + "\n".join(bad)
        )

    def inconclusive_warnings(self, path: str) -> list[str]:
        """history.inconclusive: warn (the default): one line per cell the data cannot
        place, after the history tables are written."""
        if self.history["inconclusive"] != "warn":
            return []
        return [
            f"ciphersweep: history inconclusive: {x}"
            for x in cs_history.inconclusive(path)
        ]

    def regression_failure(self, path: str) -> str | None:
        """The history gate: what fails the run (None: nothing)."""
        bad = cs_history.regressed(path)
        unsure = cs_history.inconclusive(path)
        what = f"{len(bad)} cell(s) regressed"
        if self.history["inconclusive"] == "fail" and unsure:
            what += f" and {len(unsure)} inconclusive (history.inconclusive: fail)"
            bad += unsure
        if not bad:
            return None
        return (
            f"ciphersweep: {what} against the history store (every table, plot and "
            "the report are kept):\n" + "\n".join(bad)
        )

    def preflight_paths(self) -> list[str]:
        """Every result path the run writes (checked writable before any job)."""
        history = [self.history["path"]] if self.history["enabled"] else []
        return (
            self.gathered_files()
            + self.raw_files
            + self.table_files()
            + self.every_plot_file()
            + history
        )

    def targets(self) -> list[str]:
        """What rule `all` makes."""
        return [
            *self.gathered_files(),
            *self.size_files(),
            *self.table_files(),
            *self.every_plot_file(),
            self.report_file,
            *self.compare_targets(),
            *self.history_targets(),
        ]


def _builds(rel: PurePath) -> bool:
    """Whether the file ``rel`` (under kernels/) can change what a build makes: not
    compiled Python or build trees, and of the tests (sources, scripts, data: what
    checks the binaries, never part of one) only what configuring the build reads, the
    CMake files."""
    if rel.suffix == ".pyc" or {"build", "__pycache__"} & set(rel.parts):
        return False
    if rel.parts[0] == "tests":
        return rel.name == "CMakeLists.txt" or rel.suffix == ".cmake"
    return True


def wildcard_alternatives(names: Iterable[str], none: str) -> str:
    """A wildcard constraint matching exactly ``names`` (``none`` when empty)."""
    return "|".join(map(re.escape, names)) or none
