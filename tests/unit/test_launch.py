"""Launch lines: host launcher outside, container, energy wrapper, kernel + args."""

from __future__ import annotations

from ciphersweep.job import launch
from support import make_point

ARGS = ["--impl", "ttable"]


def test_local_mpi_within_cores() -> None:
    plat = launch.Platform(where="local", kernel_dir="/k", cores=2, is_root=False)
    ln = launch.build(make_point(backend="mpi", ranks=2), plat, ARGS)
    assert ln.argv == ["mpirun", "-np", "2", "--mca", "pml", "ob1", "/k/aes-mpi"] + ARGS
    assert ln.text == "mpirun -np 2 --mca pml ob1 /k/aes-mpi --impl ttable"
    assert ln.oversubscribed is False
    # the user's own pml choice wins
    plat.mpirun_args = ["--mca", "pml", "ucx"]
    assert launch.build(make_point(backend="mpi", ranks=2), plat, ARGS).argv[3:6] == [
        "--mca",
        "pml",
        "ucx",
    ]


def test_local_mpi_oversubscribed_as_root() -> None:
    plat = launch.Platform(where="local", kernel_dir="/k", cores=2, is_root=True)
    ln = launch.build(make_point(backend="mpi", ranks=4), plat, ARGS)
    assert ln.argv[:5] == [
        "mpirun",
        "-np",
        "4",
        "--oversubscribe",
        "--allow-run-as-root",
    ]
    assert ln.oversubscribed is True


def test_slurm_srun_and_mpirun() -> None:
    plat = launch.Platform(
        where="slurm", mpi_launcher="srun", kernel_dir="/k", cores=32
    )
    assert (
        launch.build(make_point(backend="mpi", ranks=16), plat, ARGS).text
        == "srun --mpi=pmix --overlap --cpu-bind=cores --kill-on-bad-exit=1 -n 16 "
        "/k/aes-mpi --impl ttable"
    )
    plat2 = launch.Platform(
        where="slurm",
        mpi_launcher="mpirun",
        kernel_dir="/k",
        cores=32,
        mpirun_args=["--bind-to", "core"],
    )
    ln = launch.build(make_point(backend="mpi", ranks=16), plat2, ARGS)
    assert ln.text == "mpirun -np 16 --bind-to core /k/aes-mpi --impl ttable"
    assert "--oversubscribe" not in ln.argv


def test_non_mpi_points_have_no_launcher() -> None:
    plat = launch.Platform(where="slurm", kernel_dir="/k", cores=32)
    assert (
        launch.build(make_point(backend="seq", ranks=1), plat, ARGS).argv[0]
        == "/k/aes-seq"
    )
    ln = launch.build(make_point(backend="omp", ranks=1, threads=4), plat, ARGS)
    assert ln.argv[0] == "/k/aes-omp"


def test_apptainer_prefix_outside_is_launcher() -> None:
    plat = launch.Platform(
        where="slurm",
        runtime="apptainer",
        image="img.sif",
        kernel_dir="",
        binds=["/data"],
        cores=32,
    )
    ln = launch.build(make_point(backend="mpi", ranks=8), plat, ARGS)
    assert (
        ln.text
        == "srun --mpi=pmix --overlap --cpu-bind=cores --kill-on-bad-exit=1 -n 8 "
        "apptainer exec --bind /data img.sif aes-mpi --impl ttable"
    )
    cu = launch.build(
        make_point(backend="cuda", ranks=1, gpus=1, block_threads=256), plat, ARGS
    )
    assert cu.argv[:3] == ["apptainer", "exec", "--nv"]


def test_charliecloud_prefix(monkeypatch) -> None:
    monkeypatch.delenv("USER", raising=False)
    plat = launch.Platform(
        where="local",
        runtime="charliecloud",
        image="img.sqfs",
        kernel_dir="",
        cwd="/w",
        cores=2,
        is_root=True,
    )
    ln = launch.build(make_point(backend="mpi", ranks=2), plat, ARGS)
    assert ln.argv == [
        "mpirun",
        "-np",
        "2",
        "--allow-run-as-root",
        "--mca",
        "pml",
        "ob1",
        "ch-run",
        "-b",
        "/w:/mnt",
        "-c",
        "/mnt",
        "img.sqfs",
        "--",
        "aes-mpi",
        "--impl",
        "ttable",
    ]
    assert ln.env.get("USER")


def test_energy_wrapper_between_container_and_kernel() -> None:
    plat = launch.Platform(where="local", kernel_dir="/k", cores=2)
    wrap = ["likwid-perfctr", "-m", "-g", "ENERGY", "-C", "0", "-O", "-o", "x.csv"]
    ln = launch.build(
        make_point(backend="seq", ranks=1), plat, ARGS, energy_prefix=wrap
    )
    assert ln.argv == wrap + ["/k/aes-seq", "--impl", "ttable"]


def test_kernel_args() -> None:
    p = make_point(
        backend="omp",
        cipher="aes-128-ecb",
        op="decrypt",
        threads=4,
        reps=5,
        warmup=2,
        inject_fault=True,
    )
    a = launch.kernel_args(p, input_path="in.bin", json_path="out.json", energy="none")
    assert a == [
        "--impl",
        "ttable",
        "--mode",
        "ecb",
        "--op",
        "decrypt",
        "--input",
        "in.bin",
        "--reps",
        "5",
        "--warmup",
        "2",
        "--threads",
        "4",
        "--energy",
        "none",
        "--json",
        "out.json",
        "--inject-fault",
        "corrupt",
    ]
    o = make_point(backend="openssl", impl="evp", cipher="aes-256-cbc")
    ao = launch.kernel_args(o, input_path="i", json_path="j")
    assert (
        ao[:2] == ["--cipher", "aes-256-cbc"]
        and "--impl" not in ao
        and "--mode" not in ao
    )
    c = make_point(backend="cuda", gpus=1, block_threads=128)
    assert launch.kernel_args(c, input_path="i", json_path="j")[-6:-4] == [
        "--block-threads",
        "128",
    ]


def test_omp_threads_pinned_unless_user_says_otherwise(monkeypatch) -> None:
    plat = launch.Platform(where="local", kernel_dir="/k", cores=2)
    monkeypatch.delenv("OMP_PROC_BIND", raising=False)
    monkeypatch.delenv("OMP_PLACES", raising=False)
    ln = launch.build(make_point(backend="omp", ranks=1, threads=2), plat, ARGS)
    assert ln.env == {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    monkeypatch.setenv("OMP_PLACES", "threads")
    ln = launch.build(make_point(backend="omp", ranks=1, threads=2), plat, ARGS)
    assert ln.env == {"OMP_PROC_BIND": "close"}
    assert launch.build(make_point(backend="seq", ranks=1), plat, ARGS).env == {}


def test_mpi_network_settings_come_from_the_launch_module(monkeypatch) -> None:
    """cluster.mpi_network: MPI points get Open MPI's oob/btl interface settings (for
    both launchers); other points and an empty setting get none; the user's own
    OMPI_MCA_* settings win."""
    for k in ("OMPI_MCA_pml", "OMPI_MCA_btl", "OMPI_MCA_btl_tcp_if_include"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.delenv("OMPI_MCA_oob_tcp_if_include", raising=False)
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[1-2]")  # no scontrol call for mpirun
    for launcher in ("srun", "mpirun"):
        plat = launch.Platform(
            where="slurm", mpi_launcher=launcher, mpi_network="10.1.2.0/24", cores=8
        )
        env = launch.build(make_point(backend="mpi", ranks=16), plat, ARGS).env
        assert env["OMPI_MCA_btl_tcp_if_include"] == "10.1.2.0/24", env
        assert env["OMPI_MCA_oob_tcp_if_include"] == "10.1.2.0/24", env
        assert env["OMPI_MCA_btl"] == "self,vader,tcp" and env["OMPI_MCA_pml"] == "ob1"
        assert launch.build(make_point(backend="seq", ranks=1), plat, ARGS).env == {}
    plat = launch.Platform(where="slurm", mpi_network="", cores=8)
    assert launch.build(make_point(backend="mpi", ranks=16), plat, ARGS).env == {}
    monkeypatch.setenv("OMPI_MCA_btl", "self,tcp")
    plat = launch.Platform(where="slurm", mpi_network="eth0", cores=8)
    env = launch.build(make_point(backend="mpi", ranks=16), plat, ARGS).env
    assert "OMPI_MCA_btl" not in env and env["OMPI_MCA_btl_tcp_if_include"] == "eth0"


def test_local_mpirun_keeps_its_session_files_apart(monkeypatch) -> None:
    """mpirun's session directory goes under the launch's own base (concurrent mpiruns
    of one user otherwise remove each other's, open-mpi/ompi#8510); srun gets none,
    and the user's own choice wins (environment or cluster.mpirun_args)."""
    monkeypatch.delenv("OMPI_MCA_orte_tmpdir_base", raising=False)
    monkeypatch.setenv("PMIX_MCA_gds", "ds21")  # the user's: nothing else is added
    monkeypatch.setenv("HWLOC_COMPONENTS", "")
    plat = launch.Platform(where="local", cores=2, mpi_session_base="/tmp/cs-mpi-x")
    point = make_point(backend="mpi", ranks=2)
    assert launch.build(point, plat, ARGS).env == {
        "OMPI_MCA_orte_tmpdir_base": "/tmp/cs-mpi-x"
    }
    assert launch.build(make_point(backend="seq"), plat, ARGS).env == {}
    srun = launch.Platform(where="slurm", mpi_launcher="srun", mpi_session_base="/b")
    assert launch.build(point, srun, ARGS).env == {}
    plat.mpirun_args = ["--mca", "orte_tmpdir_base", "/scratch"]
    assert launch.build(point, plat, ARGS).env == {}
    plat.mpirun_args = []
    monkeypatch.setenv("OMPI_MCA_orte_tmpdir_base", "/scratch")
    assert launch.build(point, plat, ARGS).env == {}
    assert launch.build(point, launch.Platform(where="local"), ARGS).env == {}


def test_local_mpirun_keeps_pmix_s_job_store_in_process(monkeypatch) -> None:
    """One node's mpirun hands its ranks the job's information from PMIx's in-process
    store (faster to start than its shared-memory ones); srun, an mpirun under Slurm
    and a point without a launcher get nothing, and the user's own choice wins."""
    monkeypatch.delenv("PMIX_MCA_gds", raising=False)
    point = make_point(backend="mpi", ranks=2)
    local = launch.Platform(where="local", cores=2)
    assert launch.build(point, local, ARGS).env["PMIX_MCA_gds"] == "hash"
    assert (
        "PMIX_MCA_gds" not in launch.build(make_point(backend="seq"), local, ARGS).env
    )
    for plat in (
        launch.Platform(where="slurm", mpi_launcher="srun", cores=2),
        launch.Platform(where="slurm", mpi_launcher="mpirun", cores=2),
    ):
        assert "PMIX_MCA_gds" not in launch.build(point, plat, ARGS).env
    monkeypatch.setenv("PMIX_MCA_gds", "ds21")
    assert "PMIX_MCA_gds" not in launch.build(point, local, ARGS).env


def test_local_mpirun_of_own_kernels_discovers_cpus_only(
    monkeypatch,
) -> None:
    """One node's mpirun of a kernel this workflow builds keeps hwloc's discovery to
    CPUs and memory (no PCI reads, no X11/OpenCL/libxml2 plugins); a user's program,
    which may ask hwloc for its devices, srun, an mpirun under Slurm and a point
    without a launcher get nothing, and the user's own hwloc settings win."""
    for var in ("HWLOC_COMPONENTS", "HWLOC_PLUGINS_BLACKLIST", "PMIX_MCA_gds"):
        monkeypatch.delenv(var, raising=False)
    point = make_point(backend="mpi", ranks=2)
    local = launch.Platform(where="local", cores=2)
    env = launch.build(point, local, ARGS).env
    assert env["HWLOC_COMPONENTS"] == "-linuxio,-pci"
    assert "hwloc_pci" in env["HWLOC_PLUGINS_BLACKLIST"].split(",")
    assert (
        "HWLOC_COMPONENTS"
        not in launch.build(make_point(backend="seq"), local, ARGS).env
    )
    user = make_point(backend="user", impl="mykernel", ranks=2)
    assert launch.build(user, local, ARGS).env["PMIX_MCA_gds"] == "hash"
    assert "HWLOC_COMPONENTS" not in launch.build(user, local, ARGS).env
    for plat in (
        launch.Platform(where="slurm", mpi_launcher="srun", cores=2),
        launch.Platform(where="slurm", mpi_launcher="mpirun", cores=2),
    ):
        assert "HWLOC_COMPONENTS" not in launch.build(point, plat, ARGS).env
    monkeypatch.setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl")
    env = launch.build(point, local, ARGS).env
    assert "HWLOC_COMPONENTS" not in env and "HWLOC_PLUGINS_BLACKLIST" not in env
