# Native kernels (cmake, via the one build script), the user's own kernels and
# container images.
from ciphersweep.campaign.model import wildcard_alternatives
from ciphersweep.job import build as cs_build
from ciphersweep.job import runner as cs_runner
from ciphersweep.job import user_build as cs_user_build
from ciphersweep.plan import user_kernels as cs_user


rule build_kernels:
    input:
        script=str(PROJECT / "scripts" / "build-kernels.sh"),
        sources=C.kernel_sources,
    output:
        [C.kernel_binary(b) for b in C.native_backends],
    log:
        f"{RES}/logs/build_kernels.log",
    params:
        variant="",
        cflags=None,
        cmake_args=cs_build.cmake_args(C.cfg["build"]),
        build_key=lambda wildcards: C.kernel_digest(""),
        build_dir=lambda wildcards, output: os.path.dirname(output[0]),
    run:
        # the targets are the outputs, not a parameter: campaigns that share a build
        # directory with other backends do not rebuild each other's binaries
        cs_build.build_rule(input.script, params, list(output), log[0])


# One build per build.variants entry (its cflags become CMAKE_C_FLAGS).
use rule build_kernels as build_variant with:
    output:
        [C.kernel_binary(b, "{variant}") for b in C.native_backends],
    log:
        f"{RES}/logs/build_kernels_{{variant}}.log",
    wildcard_constraints:
        variant=wildcard_alternatives(C.variants, "NO_VARIANTS"),
    params:
        variant=lambda wildcards: wildcards.variant,
        cflags=lambda wildcards: C.variants[wildcards.variant],
        cmake_args=lambda wildcards: cs_build.cmake_args(
            C.cfg["build"], C.variants[wildcards.variant]
        ),
        build_key=lambda wildcards: C.kernel_digest(wildcards.variant),
        build_dir=lambda wildcards, output: os.path.dirname(output[0]),


# A user's kernel with a source (a CMake project): one build per version of its sources
# and settings, in its own directory (ciphersweep.plan.user_kernels); a failed build
# is recorded in build.json and fails the kernel's points with the reason.
rule build_user_kernel:
    input:
        lambda wildcards: C.user_builds[wildcards.ubuild].sources,
    output:
        f"{cs_user.BUILD_ROOT}/{{ubuild}}/{cs_user.BUILD_FILE}",
    log:
        f"{cs_user.BUILD_ROOT}/{{ubuild}}.log",
    wildcard_constraints:
        ubuild=wildcard_alternatives(C.user_builds, "NO_USER_BUILDS"),
    run:
        cs_user_build.build(C.user_builds[wildcards.ubuild], output[0], log[0])


# text/data/bss of each build's binaries and algorithm object code (size(1)). It holds
# the `bench` resource as a benchmark job does: it never runs beside a point being
# measured (it was ready with the first one, and its size(1) ran beside it). It runs
# where Snakemake runs: under Slurm, not a job of its own (an allocation, and its wait
# in the queue, to read a few numbers from the shared build directory).
localrules:
    binary_sizes,


rule binary_sizes:
    input:
        lambda wildcards: [
            C.kernel_binary(b, C.build_of[wildcards.build]) for b in C.native_backends
        ],
    output:
        f"{RES}/build/{{build}}.sizes.json",
    log:
        f"{RES}/logs/binary_sizes_{{build}}.log",
    wildcard_constraints:
        build=wildcard_alternatives(C.build_of, "NO_BUILDS"),
    resources:
        bench=1,
    params:
        build_dir=lambda wildcards, input: os.path.dirname(input[0]),
    run:
        cs_build.write_sizes(wildcards.build, params.build_dir, list(input), output[0])


rule build_image:
    input:
        script=str(PROJECT / "containers" / "build-image.sh"),
        recipe=str(PROJECT / "containers" / f"{C.recipe}.def"),
        containers=[
            str(f)
            for f in sorted((PROJECT / "containers").glob("*"))
            if f.is_file() and f.suffix != ".def" and f.name != "build-image.sh"
        ],
        kernels=C.kernel_sources,
    output:
        image=C.image_file,
        digest=f"{C.image_file}.sha256",
    log:
        f"{RES}/logs/build_image_{C.recipe}.log",
    params:
        runtime=C.runtime,
        build_args=" ".join(C.cfg["platform"]["container"]["apptainer_build_args"]),
    run:
        cs_runner.build_image(
            input.script,
            input.recipe,
            output.image,
            output.digest,
            params.runtime,
            params.build_args,
            log[0],
        )
