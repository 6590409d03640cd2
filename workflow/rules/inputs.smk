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
        inputs_group
    resources:
        bench=1,
    params:
        nbytes=lambda wildcards: SIZES[wildcards.size],
        seed=lambda wildcards: SEEDS[wildcards.size],
    run:
        cs_runner.gen_input(gen_spec(), output[0], params.nbytes, params.seed, log[0])
