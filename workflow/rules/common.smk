# Configuration, validation and the sweep: everything the rules need, from the
# ciphersweep package (workflow/ciphersweep). The config and the sweep are made at parse
# time; build keys (a hash of the kernel sources) and the verdicts on the raw records
# are made once, when a job's parameters first ask for them.
import functools
import gc
import hashlib
import os
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

# What is made before this file runs (Snakemake's modules, the command line) lives as
# long as the run: frozen, the garbage collector stops walking it at each of its passes
# (a tenth of a second of a parse). The rest is frozen when the run ends
# (ciphersweep.campaign.ending).
gc.freeze()

PROJECT = Path(workflow.basedir)
sys.path.insert(0, str(PROJECT / "workflow"))

from ciphersweep.backends import codepath as cs_codepath  # noqa: E402
from ciphersweep.campaign import plan_summary as cs_plan_summary  # noqa: E402
from ciphersweep.core import digest as cs_digest  # noqa: E402
from ciphersweep.core import paths as cs_paths  # noqa: E402
from ciphersweep.core import wording as cs_wording  # noqa: E402
from ciphersweep.job import build as cs_build  # noqa: E402
from ciphersweep.analysis import compare as cs_compare  # noqa: E402
from ciphersweep.plan import config as cs_config  # noqa: E402
from ciphersweep.plan import campaign_source as cs_source  # noqa: E402
from ciphersweep.campaign import console as cs_console  # noqa: E402
from ciphersweep.campaign import ending as cs_ending  # noqa: E402
from ciphersweep.campaign import hangup as cs_hangup  # noqa: E402
from ciphersweep.campaign import lock as cs_lock  # noqa: E402
from ciphersweep.plan import fingerprint as cs_fp  # noqa: E402
from ciphersweep.analysis import plots as cs_plots  # noqa: E402
from ciphersweep.campaign import preflight as cs_preflight  # noqa: E402
from ciphersweep.job import provenance as cs_prov  # noqa: E402
from ciphersweep.verdict import admission as cs_admission  # noqa: E402
from ciphersweep.verdict import records as cs_records  # noqa: E402
from ciphersweep.analysis import report as cs_report  # noqa: E402
from ciphersweep.job import launch as cs_launch  # noqa: E402
from ciphersweep.job import busy as cs_busy  # noqa: E402
from ciphersweep.job import packs as cs_packs  # noqa: E402
from ciphersweep.job import runner as cs_runner  # noqa: E402
from ciphersweep.plan import sweep as cs_sweep  # noqa: E402
from ciphersweep.plan import user_kernels as cs_user  # noqa: E402
from ciphersweep.plan import resources as cs_resources  # noqa: E402
from ciphersweep.analysis.tables import registry as cs_registry  # noqa: E402
from ciphersweep.analysis.history import outputs as cs_history  # noqa: E402

# The campaign: config/config.yaml, or the files given with --configfile, which
# describe a whole campaign and replace the default instead of being merged into it;
# --config KEY=VALUE overrides single keys of either (ciphersweep.plan.campaign_source).
# The Snakefile has no configfile: directive, so Snakemake's `config` holds exactly
# what the command line gave; it is read, never changed.
CAMPAIGN_FILES = cs_source.campaign_files(sys.argv[1:])
try:
    RAW_CFG = cs_source.from_command_line(config, sys.argv[1:])
    CFG = cs_config.validate(RAW_CFG, root=PROJECT, workdir=Path.cwd())
except cs_config.ConfigError as exc:
    # no job started; the console (profiles/default) shows the one line naming the key
    # and what is allowed, without Snakemake's frame lines
    raise WorkflowError(cs_config.format_error(exc)) from None

CAMPAIGN = CFG["campaign"]
RES = f"results/{CAMPAIGN}"
RUNTIME = CFG["platform"]["container"]["runtime"]
RECIPE = CFG["platform"]["container"]["recipe"]
BUILD_DIR = CFG["build"]["dir"]
POINT_LIST = cs_sweep.expand(CFG)
POINTS = {p.id: p for p in POINT_LIST}
RESOURCES = {
    p.id: cs_resources.resources(p, CFG["cluster"], CFG["timeout_s"])
    for p in POINT_LIST
}
PACKS = cs_resources.packs(POINT_LIST, CFG["cluster"])
PACK_OF = {pid: name for name, members in PACKS.items() for pid in members}
PACK_RESOURCES = {
    name: cs_resources.pack_resources([RESOURCES[pid] for pid in members])
    for name, members in PACKS.items()
}

# Benchmark jobs never overlap: each asks for bench=1 and, unless --resources says
# otherwise, 1 is all there is. The Slurm profile scopes `bench` local, so there it
# applies inside each allocation, also in the job processes Snakemake starts there
# (they are not given --resources), and lays packed points out one after another.
if "bench" not in workflow.global_resources:
    workflow.register_resource("bench", 1)
BACKENDS = sorted({p.backend for p in POINT_LIST})
# aes-seq also generates the inputs; the Python-side kernels are not built
NATIVE_BACKENDS = sorted((set(BACKENDS) | {"seq"}) & set(cs_config.KERNEL_BINARIES))
# the user's kernels built by the workflow (build_user_kernel), by build directory
USER_BUILDS = cs_user.builds(CFG)
IMAGE_EXT = "sif" if RUNTIME == "apptainer" else "sqfs"
IMAGE = f"{RES}/images/{RECIPE}.{IMAGE_EXT}" if RUNTIME != "none" else None
GIT_REV = cs_prov.git_revision(PROJECT)


# The packs' lists (the bench jobs' outputs): what gather waits for. A point's records
# are in RAW_FILES, written by its pack's bench job.
def pack_file(name):
    return f"{RES}/packs/{name}.txt"


PACK_FILES = [pack_file(name) for name in PACKS]


def raw_file(pid):
    return f"{RES}/raw/{pid}.jsonl"


RAW_FILES = [raw_file(pid) for pid in POINTS]


def pack_res(name):
    """A bench job's resource ``name``: its pack's (ciphersweep.plan.resources)."""
    return lambda wildcards: PACK_RESOURCES[wildcards.pack][name]


if workflow.is_main_process:
    # a closed terminal ends the run like Ctrl-C (lock released; the same command
    # continues), not with the default SIGHUP death that leaves the lock behind; Ctrl-C,
    # a hang-up or SIGTERM ends it with one line (ciphersweep.campaign.hangup)
    cs_hangup.interrupts_recorded()
    cs_hangup.one_line_interrupts()
    # the lock of a run killed outright (kill -9) whose processes are gone is released
    # before Snakemake takes its own; this run's processes carry its name
    # (ciphersweep.campaign.lock)
    _released = cs_lock.release_stale()
    cs_lock.mark_run()
    if _released:
        logger.warning(_released)


@functools.cache
def _kernel_sources():
    src = PROJECT / "kernels"
    files = [
        str(f)
        for f in sorted(src.rglob("*"))
        if f.is_file()
        and f.suffix != ".pyc"
        and not {"build", "__pycache__"} & set(f.relative_to(src).parts)
    ]
    return (*files, str(PROJECT / "scripts" / "build-kernels.sh"))


def kernel_sources():
    """Files whose change rebuilds the kernels (and images); listed once."""
    return list(_kernel_sources())


# Native builds: one per build.variants entry, or the one default build ("").
VARIANTS = cs_build.variants(CFG["build"])
BUILDS = list(VARIANTS) or [""]


def build_dir(variant=""):
    return cs_build.build_dir(CFG["build"], variant)


def build_name(variant):
    """File-name form of a build ("default" for the one default build)."""
    return cs_build.build_name(variant)


# build name -> variant ("" = the default build), for the rules keyed by build name
BUILD_OF = {build_name(v): v for v in BUILDS}


def kernel_binary(backend, variant=""):
    return f"{build_dir(variant)}/aes-{backend}"


@functools.cache
def kernel_digest(variant=""):
    """The build key of a native build (sources, build script, its effective cmake
    arguments, flags and build environment: ciphersweep.job.build.key_settings):
    baked into its binaries, the bench rule's `kernels` parameter and the build key
    every record of the build must carry. Hashed the first time a job's parameters
    ask for it (never for --list, --lint or a job of another build), then kept for
    the run."""
    if RUNTIME != "none":
        return None
    args = cs_build.cmake_args(CFG["build"], VARIANTS.get(variant))
    return cs_fp.build_key(kernel_sources(), cs_build.key_settings(args), root=PROJECT)


def kernel_digests():
    """Every build's key, by variant (the history records them)."""
    return {v: kernel_digest(v) for v in BUILDS}


def generator_binary():
    """The input generator a native campaign's bench jobs run: aes-seq of the first
    build (the generated bytes depend only on size and seed)."""
    return kernel_binary("seq", BUILDS[0])


def size_files():
    """Binary-size records of every native build (none for container campaigns)."""
    if RUNTIME != "none":
        return []
    return [f"{RES}/build/{build_name(v)}.sizes.json" for v in BUILDS]


def generated_file(name):
    """Where the generated input ``name`` is made."""
    return f"{RES}/inputs/{name}.bin"


def input_file(point):
    if point.input_path is not None:
        return point.input_path
    return generated_file(point.input_name)


def generated_input(point):
    """A point's generated input (None: a user's file): made by the bench job that
    first needs it; the same bytes made again measure nothing again, other bytes are
    told by the point's input stamp."""
    return None if point.input_path is not None else generated_file(point.input_name)


def point_inputs(point):
    """(plain, aged) inputs of a point: the files whose being newer than its records
    measures it again, and the kernel binary it runs, whose content its records'
    fingerprint compares instead (ancient)."""
    if RUNTIME != "none":
        return [IMAGE, input_file(point)], []
    if point.backend == "user":
        return [input_file(point)], [
            cs_user.kernel_file(point.program, point.build_key)
        ]
    if point.backend in cs_config.PY_BACKENDS:
        kernel = cs_paths.python_kernel(f"kernel_{point.backend}")
        return [str(kernel), input_file(point)], []
    return [input_file(point)], [kernel_binary(point.backend, point.variant)]


def pack_inputs(wildcards):
    """What a pack's points read: their input data and the one kernel binary (or the
    image) each runs, and the input generator of the generated inputs, which the
    first bench job that needs one makes (ciphersweep.job.runner.ensure_input; one job
    per size would be thousands of jobs in a wide sweep). A binary rebuilt from the
    same sources (e.g. after one was removed) re-measures nothing: it is ancient while
    every point of the pack holds records of the planned fingerprint. Otherwise it is
    a plain input: Snakemake does not look at the own reasons (params, --forcerun) of
    jobs below a job that runs, only at their plain inputs."""
    members = PACKS.get(wildcards.pack)
    if members is None:
        raise WorkflowError(f"ciphersweep: unknown pack {wildcards.pack!r}")
    plain, aged = set(), set()
    for pid in members:
        p, a = point_inputs(POINTS[pid])
        made = generated_input(POINTS[pid])
        plain.update(f for f in p if f != made)
        (plain if replan(pid)[1] else aged).update(a)
        if made is not None and RUNTIME == "none":
            (plain if pending(pid) else aged).add(generator_binary())
    return {
        "data": sorted(plain),
        "kernels": [ancient(f) for f in sorted(aged - plain)],
    }


@functools.cache
def built_here(variant):
    """Whether a build's binaries were made by the build rule (they carry its key)."""
    return cs_build.info_build_key(build_dir(variant)) is not None


def expected_fingerprint(point):
    """What the records of a point must show (ciphersweep.plan.fingerprint): the build key
    of a build the workflow made, the binary (or Python kernel, or program) on disk,
    the input's bytes, the image, the planned shape, the code-path variables of the
    environment its kernel is launched with and the versions of its libraries."""
    key, binary = None, None
    if point.backend == "user":
        binary, key = point.program, point.build_key
    elif RUNTIME == "none" and point.backend == "command":
        binary = cs_fp.program_file(point.command)
    elif RUNTIME == "none" and point.backend in cs_config.PY_BACKENDS:
        binary = str(cs_paths.python_kernel(f"kernel_{point.backend}"))
    elif RUNTIME == "none":
        binary = kernel_binary(point.backend, point.variant)
        key = kernel_digest(point.variant) if built_here(point.variant) else None
    data = input_file(point)
    added = tuple(sorted(cs_launch.build(point, plan_platform(), []).env.items()))
    code_path, env = planned_env(point.backend, point.impl, added)
    libraries = None
    if RUNTIME == "none":
        libraries = cs_codepath.planned_libraries(
            point.backend, point.impl, env, sys.executable, binary
        )
    return cs_fp.Expected(
        point,
        build_key=key,
        binary=binary,
        input_path=data,
        input_digest=cs_fp.digest_file(data) if point.input_path is None else None,
        image_digest=f"{IMAGE}.sha256" if IMAGE else None,
        code_path_env=code_path,
        libraries=libraries,
    )


# The environment the plan was made in, read once (os.environ decodes every item).
PLAN_ENV = dict(os.environ)


@functools.cache
def planned_env(backend, impl, added):
    """(the code-path variables, the whole environment) a kernel of ``backend`` and
    ``impl`` gets, launched with ``added`` (what its launch line adds): the same for
    every point of one kind, worked out once (ciphersweep.job.launch.kernel_env)."""
    env = {**PLAN_ENV, **dict(added)}
    return cs_codepath.select(backend, impl, env), env


@functools.cache
def plan_platform():
    """How the points are launched, as far as the environment their kernels get
    depends on it (ciphersweep.job.launch.kernel_env): the planned code-path
    variables and library versions are taken from that environment."""
    cont = CFG["platform"]["container"]
    cluster = CFG["cluster"]
    return cs_launch.Platform(
        mpi_launcher=cluster["mpi_launcher"],
        mpirun_args=list(cluster["mpirun_args"]),
        mpi_network=cluster["mpi_network"],
        runtime=RUNTIME,
        image=IMAGE,
        binds=list(cont["bind"]),
        cwd=str(Path.cwd()),
    )


@functools.cache
def expected(pid):
    """A point's expected fingerprint, made when a job first asks for it."""
    return expected_fingerprint(POINTS[pid])


def expected_all():
    """Every point's expected fingerprint (gather judges every raw file by it)."""
    return {pid: expected(pid) for pid in POINTS}


def input_stamp(point):
    """The bench rule's `input` parameter for a user's own file: its size,
    modification time and change time. Snakemake re-runs a job only for a NEWER input;
    a file replaced by other bytes with an older or the same modification time (cp -p,
    rsync -t, touch -r) changes this stamp (its change time cannot be set back), so its
    points are measured again in this run. The bytes themselves are compared with the
    records' input digest at gather. A generated input: None while its `.sha256`
    holds, else the digest of the bytes in its place (cs_fp.generated_stamp)."""
    if point.input_path is None:
        return cs_fp.generated_stamp(input_file(point))
    try:
        st = os.stat(point.input_path)
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


@functools.cache
def gathered():
    """(the points the campaign's summary.csv names, its modification time) or
    (None, 0): read once, when a raw file is missing."""
    path = f"{RES}/summary.csv"
    try:
        return cs_records.summarized_points(path), os.stat(path).st_mtime_ns
    except (OSError, KeyError, ValueError):
        return None, 0


@functools.cache
def replan(pid):
    """(attempt token, why the point runs again or None) of a point's raw file: read
    and judged once, when a job's parameters first ask for it. A raw file removed after
    its pack (or, its pack's list removed too, a gather) saw it measured is measured
    again (cs_admission.lost)."""
    gone = None
    if not os.path.exists(raw_file(pid)):
        gone = cs_admission.lost(
            raw_file(pid), *pack_listing(PACK_OF[pid]), *gathered()
        )
    if gone is not None:
        return gone, f"{raw_file(pid)}: its records are gone (it had been measured)"
    return cs_admission.replan(raw_file(pid), POINTS[pid], expected(pid))


@functools.cache
def pack_listing(pack):
    """(the points a pack's list names, the list's modification time) or (None, 0)."""
    path = pack_file(pack)
    try:
        return cs_packs.listed(path), os.stat(path).st_mtime_ns
    except OSError:
        return None, 0


def attempt(pid):
    """The bench rule's `attempt` parameter: unchanged while the point's raw file holds
    admitted records of the planned fingerprint, new when it holds a failure, is
    damaged or shows another build, binary, input or shape, so Snakemake's params
    rerun trigger runs exactly those points again, in this run (nothing is deleted).
    A point still to be measured after a run that did not measure it (--touch, an
    interrupted or failed bench job) gets a new one then (cs_admission.attempt)."""
    return cs_admission.attempt(
        replan(pid)[0], pending(pid), pack_listing(PACK_OF[pid])[1]
    )


@functools.cache
def judged():
    """gather's `judged` parameter: every point's attempt token, so that a raw file
    judged otherwise than at the last gather always brings the tables up to date.
    Every raw file is read here, once, when the DAG asks for gather's parameters
    (not for --list or --lint); the points that run again are named then."""
    if workflow.is_main_process:
        plan_report()
    return hashlib.sha256(
        "\n".join(f"{p} {attempt(p)}" for p in sorted(POINTS)).encode()
    ).hexdigest()


@functools.cache
def judge_code():
    """gather's `judge_code` parameter: the digest of the code that admits records
    (ciphersweep.core.paths.verdict_sources), so that an upgrade which judges records
    otherwise brings the summary and the tables up to date with the same raw files."""
    return cs_digest.files_digest(
        [str(f) for f in cs_paths.verdict_sources()], root=PROJECT
    )


def plan_report():
    """What this run measures, said once before any job: one warning counting the
    failed, damaged or changed points that run again, a screenful summing up what runs
    and why (cs_plan_summary), a line per point to measure (the console shows them with
    --verbose), and how many (the console's count)."""
    todo = {p: pending(p) for p in POINTS if pending(p)}
    again = [p for p, why in todo.items() if why != cs_admission.NO_RECORDS]
    # --touch marks the jobs done and measures nothing: the next run measures them
    # (cs_admission.attempt)
    touch = workflow.touch
    if again:
        more = f" ... ({len(again) - 5} more)" if len(again) > 5 else ""
        logger.warning(
            f"ciphersweep: {len(again)} failed, damaged or changed point(s) "
            + ("left to the next run (--touch measures none): " if touch else "")
            + ("" if touch else "run again: ")
            + " ".join(again[:5])
            + more
        )
    for line in cs_plan_summary.lines(todo, POINTS):
        logger.info(f"ciphersweep: {line}", extra={"ciphersweep": "plan_summary"})
    for pid, why in todo.items():
        logger.info(
            f"ciphersweep: to measure: {pid} ({why})", extra={"ciphersweep": "pending"}
        )
    n = 0 if touch else len(todo)
    logger.info(
        f"ciphersweep: {n} benchmark point{'' if n == 1 else 's'} to measure",
        extra={"ciphersweep": "plan", "points": n},
    )


@functools.cache
def plan_key(pid):
    """What a point is planned with besides its fingerprint (kept in its records): a
    Python-side point's without the native build's key, which it does not run."""
    point = POINTS[pid]
    native = point.backend in cs_config.KERNEL_BINARIES
    return cs_fp.plan_key(
        point.as_dict(),
        input_stamp(point),
        kernel_digest(point.variant) if native else None,
        launch_settings(point),
    )


def launch_settings(point):
    """The campaign's settings a point's launch depends on: the energy mode, and an MPI
    point's launcher, mpirun arguments and network (the same wherever it is planned:
    not the launch line, which a Slurm job builds otherwise than the planning)."""
    cluster = CFG["cluster"]
    mpi = ("mpi_launcher", "mpirun_args", "mpi_network")
    return {
        "energy": CFG["platform"]["energy"],
        **({k: cluster[k] for k in mpi} if point.mpi_launched else {}),
    }


@functools.cache
def pending(pid):
    """Why the point is measured in this run (None: its records hold)."""
    return cs_admission.pending(
        raw_file(pid),
        replan(pid)[1],
        functools.partial(plan_key, pid),
        [f for f in point_inputs(POINTS[pid])[0] if f != generated_input(POINTS[pid])],
    )


def pack_state(pack):
    """The bench rule's `state` parameter: its points' attempt tokens and plan keys."""
    text = "\n".join(f"{p} {attempt(p)} {plan_key(p)}" for p in PACKS[pack])
    return hashlib.sha256(text.encode()).hexdigest()


def pack_members(pack):
    """The points of a pack, how each runs and why it is measured (job side)."""
    return [
        cs_packs.Member(POINTS[pid], run_spec(POINTS[pid]), pending(pid))
        for pid in PACKS[pack]
    ]


@functools.cache
def busy_monitor():
    """The busy checks of this process's bench jobs (local runs: every pack; a Slurm
    job step: its own), made when the first pack runs."""
    return cs_busy.Monitor()


def point_done(pid, summary):
    """A point of a bench job has its records: one line for the console."""
    reason = summary.get("reason")
    logger.info(
        f"ciphersweep: {pid}: " + (f"failed: {reason}" if reason else "measured"),
        extra={"ciphersweep": "point", "point": pid, "failure": reason},
    )


def run_spec(point):
    cont = CFG["platform"]["container"]
    return cs_runner.RunSpec(
        campaign=CAMPAIGN,
        input_path=input_file(point),
        out_path=raw_file(point.id),
        log_path=f"{RES}/logs/bench/{point.id}.log",
        kernel_dir=cont["bin_dir"] if RUNTIME != "none" else build_dir(point.variant),
        runtime=RUNTIME,
        image=IMAGE,
        image_digest_file=f"{IMAGE}.sha256" if IMAGE else None,
        binds=list(cont["bind"]),
        mpi_launcher=CFG["cluster"]["mpi_launcher"],
        mpirun_args=list(CFG["cluster"]["mpirun_args"]),
        mpi_network=CFG["cluster"]["mpi_network"],
        energy=CFG["platform"]["energy"],
        timeout_s=cs_resources.kernel_timeout(point, CFG["cluster"], CFG["timeout_s"]),
        git_rev=GIT_REV,
        cwd=str(Path.cwd()),
        attempt=attempt(point.id),
        plan_key=plan_key(point.id),
        generator=gen_spec() if point.input_path is None else [],
        generator_log=f"{RES}/logs/inputs/{point.input_name}.log",
    )


def table_files():
    names = cs_registry.table_names(CFG, POINT_LIST)
    return [f"{RES}/tables/{n}.{ext}" for n in names for ext in ("csv", "md", "tex")]


def plot_files(ext="png"):
    return [f"{RES}/plots/{n}.{ext}" for n in cs_plots.plot_names(CFG, POINT_LIST)]


REPORT = f"{RES}/report.html"
# What the report captions (workflow/report/*.rst) say the cells rest on: the statistic,
# the interval levels and the repetitions as they ran. A rule parameter, read from
# summary.csv only when `snakemake --report` renders a caption (snakemake.params.basis);
# no plain value, so it never makes a job run again (ciphersweep.core.wording).
CAPTION_BASIS = cs_wording.FromSummary(CFG, f"{RES}/summary.csv")


def campaign_summary(ok):
    """Log the end-of-campaign summary (printed by the console plugin as it is); the
    process then ends when its work does (ciphersweep.campaign.ending). A finished
    campaign that measured nothing ends with that line and exit status 1."""
    signame = cs_hangup.received()
    if signame:  # an interrupted run: one line
        line = cs_hangup.interrupted_line(signame, f"during campaign {CAMPAIGN}")
        logger.info(line, extra={"ciphersweep": "summary", "interrupted": signame})
        cs_ending.end_promptly()
        return
    command = cs_console.report_command(REPORT, CAMPAIGN_FILES)
    lines = cs_console.summary_lines(RES, REPORT, command, ok=ok, cfg=CFG)
    logger.info("\n".join(lines), extra={"ciphersweep": "summary"})
    cs_ending.end_promptly()
    nothing = cs_console.nothing_measured(RES) if ok else None
    if nothing:
        raise WorkflowError(nothing)


@functools.cache
def gen_spec():
    """Launch prefix of the input generator: native aes-seq, or aes-seq in the image."""
    cont = CFG["platform"]["container"]
    plat = cs_launch.Platform(
        runtime=RUNTIME,
        image=IMAGE,
        binds=list(cont["bind"]),
        kernel_dir=cont["bin_dir"] if RUNTIME != "none" else build_dir(BUILDS[0]),
        cwd=str(Path.cwd()),
    )
    return cs_launch.generator_argv(plat)


# Tables with a report section of their own (the others: tables.rst, "Tables").
REPORT_SECTIONS = {
    "energy": ("../report/energy.rst", "Energy and CPU utilisation"),
    "cpu_util": ("../report/energy.rst", "Energy and CPU utilisation"),
    "provenance": ("../report/provenance.rst", "Provenance"),
}


def table_report(f):
    """Report entry of a table's CSV file, in its section."""
    name = os.path.basename(f).removesuffix(".csv")
    caption, category = REPORT_SECTIONS.get(name, ("../report/tables.rst", "Tables"))
    return report(update(f), caption=caption, category=category, subcategory=name)


COMPARE_FILES = [
    f"{RES}/compare/{n}.{ext}"
    for n in cs_compare.output_names(CFG)
    for ext in ("csv", "md")
]
REFERENCE_CHECK = (
    bool(CFG["compare"].get("references")) and CFG["compare"]["on_violation"] == "fail"
)


def compare_inputs():
    """The published data and claims files: a change to them re-runs the comparison."""
    comp = CFG["compare"]
    return [comp[k] for k in ("published", "claims") if k in comp] + (
        [f"{comp['campaign']}/summary.csv"] if "campaign" in comp else []
    )


def compare_targets():
    return COMPARE_FILES + ([f"{RES}/compare/references.ok"] if REFERENCE_CHECK else [])


def warn_violations(path):
    if os.path.exists(path):
        for line in cs_compare.check_references(path):
            logger.warning(f"ciphersweep: reference: {line}")
        for line in cs_compare.inconclusive_references(path):
            logger.warning(f"ciphersweep: reference inconclusive: {line}")


def fail_on_violations(path):
    bad = cs_compare.check_references(path)
    if bad:
        raise WorkflowError(
            f"ciphersweep: {len(bad)} cell(s) outside their performance reference "
            "(compare.on_violation: fail; every table and comparison is kept):\n"
            + "\n".join(bad)
        )


# Before any job: the result paths can be written, every point's buffers fit in this
# machine's memory (local runs) and OpenSSL has every cipher (ciphersweep.campaign.preflight;
# it only reads).
if workflow.is_main_process:
    try:
        cs_preflight.check(
            CFG,
            POINT_LIST,
            [f"{RES}/{f}" for f in ("measurements.csv", "summary.csv", "failures.csv")]
            + RAW_FILES
            + table_files()
            + plot_files()
            + ([CFG["history"]["path"]] if CFG["history"]["enabled"] else []),
            local=workflow.local_exec,
        )
    except cs_config.ConfigError as exc:
        raise WorkflowError(cs_config.format_error(exc)) from None


# The results history (workflow/rules/history.smk): its outputs, the gate, and what
# the report's history section reads.
HISTORY = CFG["history"]
HISTORY_MARKER = f"{RES}/history/appended.json"
HISTORY_TABLES = {
    "history_csv": f"{RES}/tables/history.csv",
    "history_md": f"{RES}/tables/history.md",
    "history_tex": f"{RES}/tables/history.tex",
    "regressions_csv": f"{RES}/tables/regressions.csv",
    "regressions_md": f"{RES}/tables/regressions.md",
    "regressions_tex": f"{RES}/tables/regressions.tex",
}
HISTORY_PLOTS = [f"{RES}/plots/history_trend.{ext}" for ext in ("png", "pdf", "svg")]
HISTORY_CHECK = f"{RES}/history/regressions.ok"


def history_targets():
    """What `all` asks for: the append, the history tables and plots (and the gate
    with history.fail_on_regression), when history.enabled."""
    if not HISTORY["enabled"]:
        return []
    gate = [HISTORY_CHECK] if HISTORY["fail_on_regression"] else []
    return [HISTORY_MARKER, *HISTORY_TABLES.values(), *HISTORY_PLOTS, *gate]


def fail_on_regressions(path):
    bad = cs_history.regressed(path)
    unsure = cs_history.inconclusive(path)
    what = f"{len(bad)} cell(s) regressed"
    if HISTORY["inconclusive"] == "fail" and unsure:
        what += f" and {len(unsure)} inconclusive (history.inconclusive: fail)"
        bad += unsure
    if bad:
        raise WorkflowError(
            f"ciphersweep: {what} against the history store (every table, plot and "
            "the report are kept):\n" + "\n".join(bad)
        )


def history_step(output, fn, *args):
    """A history step; a store or a campaign's results that it cannot use are one
    line (ciphersweep.analysis.history.outputs.PROBLEMS)."""
    try:
        return cs_console.write_step(output, fn, *args)
    except cs_history.PROBLEMS as exc:
        raise WorkflowError(f"ciphersweep: {exc}") from None


def warn_inconclusive(path):
    """history.inconclusive: warn (the default): one line per cell the data cannot
    place, after the history tables are written."""
    if HISTORY["inconclusive"] == "warn":
        for line in cs_history.inconclusive(path):
            logger.warning(f"ciphersweep: history inconclusive: {line}")


# the report's history section (its inputs, when the history is on)
HISTORY_REPORT = (
    [HISTORY_TABLES[k] for k in ("history_csv", "regressions_csv")] + HISTORY_PLOTS[:1]
    if HISTORY["enabled"]
    else []
)
