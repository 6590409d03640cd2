# Native kernels (cmake, via the one build script) and container images.


rule build_kernels:
    input:
        script=str(PROJECT / "scripts" / "build-kernels.sh"),
        sources=kernel_sources(),
    output:
        [kernel_binary(b) for b in NATIVE_BACKENDS],
    log:
        f"{RES}/logs/build_kernels.log",
    params:
        cmake_args=" ".join(CFG["build"]["cmake_args"]),
        build_dir=lambda wildcards, output: os.path.dirname(output[0]),
    run:
        cs_runner.build_kernels(
            input.script, params.build_dir, params.cmake_args, log[0]
        )


rule build_image:
    input:
        script=str(PROJECT / "containers" / "build-image.sh"),
        recipe=str(PROJECT / "containers" / f"{RECIPE}.def"),
        containers=[
            str(f)
            for f in sorted((PROJECT / "containers").glob("*"))
            if f.is_file() and f.suffix != ".def" and f.name != "build-image.sh"
        ],
        kernels=kernel_sources(),
    output:
        image=f"{RES}/images/{RECIPE}.{IMAGE_EXT}",
        digest=f"{RES}/images/{RECIPE}.{IMAGE_EXT}.sha256",
    log:
        f"{RES}/logs/build_image_{RECIPE}.log",
    params:
        runtime=RUNTIME,
        build_args=" ".join(CFG["platform"]["container"]["apptainer_build_args"]),
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
