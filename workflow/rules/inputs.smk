# One deterministic input per size (and per member of a generated file set), generated
# once by `aes-seq --gen-input` and reused by every point of that input. User files and
# sets (config `inputs`) are used as they are.


rule gen_input:
    input:
        unpack(kernel_deps),
    output:
        f"{RES}/inputs/{{size}}.bin",
    log:
        f"{RES}/logs/inputs/{{size}}.log",
    wildcard_constraints:
        size="|".join(SIZES) if SIZES else "NO_SIZES",
    group:
        "inputs"
    resources:
        bench=1,
    params:
        nbytes=lambda wildcards: SIZES[wildcards.size],
        seed=lambda wildcards: SEEDS[wildcards.size],
    run:
        cs_runner.gen_input(gen_spec(), output[0], params.nbytes, params.seed, log[0])


# The generated inputs and this job are one connected group: one allocation makes them
# all under Slurm.
rule inputs_made:
    input:
        [f"{RES}/inputs/{size}.bin" for size in SIZES],
    output:
        f"{RES}/packs/inputs.txt",
    log:
        f"{RES}/logs/packs/inputs.log",
    group:
        "inputs"
    resources:
        runtime=1,
        mem_mb=100,
    params:
        points=list(SIZES),
    run:
        cs_packs.write_members(output[0], params.points, log[0])
