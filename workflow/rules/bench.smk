# One job per benchmark point. Resources come from the point (ciphersweep.plan.sweep);
# `bench=1` lets a profile keep benchmark jobs from overlapping; small points with the
# same resource shape share a pack (one allocation) when cluster.pack is on.


rule bench:
    input:
        unpack(bench_inputs),
    output:
        # update: the raw file stays in place until the new records replace it, so the
        # `attempt` parameter always sees the last run's file (also in a Slurm job)
        update(f"{RES}/raw/{{point}}.jsonl"),
    log:
        f"{RES}/logs/bench/{{point}}.log",
    wildcard_constraints:
        point="[A-Za-z0-9][A-Za-z0-9_.+-]*",
    group:
        pack_group
    threads:
        lambda wildcards: max(
            1,
            RESOURCES[wildcards.point]["tasks"]
            * RESOURCES[wildcards.point]["cpus_per_task"],
        )
    resources:
        nodes=res("nodes"),
        tasks=res("tasks"),
        cpus_per_task=res("cpus_per_task"),
        gpu=res("gpu"),
        runtime=res("runtime"),
        mem_mb=res("mem_mb"),
        bench=1,
        slurm_extra="--exclusive" if CFG["cluster"]["exclusive"] else "",
        mpi=res("mpi"),
    params:
        point=lambda wildcards: POINTS[wildcards.point].as_dict(),
        attempt=lambda wildcards: attempt(wildcards.point),
        input=lambda wildcards: input_stamp(POINTS[wildcards.point]),
        kernels=lambda wildcards: kernel_digest(POINTS[wildcards.point].variant),
    run:
        point = POINTS[wildcards.point]
        cs_runner.run_point(
            point, run_spec(point, input, output, log, params.attempt)
        )


# A pack's points and the job that lists them are one connected group, so that Snakemake
# runs the pack's pending points in one allocation (one group job). The list says which
# points shared it.
rule pack:
    input:
        lambda wildcards: [f"{RES}/raw/{pid}.jsonl" for pid in PACKS[wildcards.pack]],
    output:
        f"{RES}/packs/{{pack}}.txt",
    log:
        f"{RES}/logs/packs/{{pack}}.log",
    wildcard_constraints:
        pack="pack-[A-Za-z0-9-]+",
    group:
        lambda wildcards: wildcards.pack
    resources:
        nodes=pack_res("nodes"),
        tasks=pack_res("tasks"),
        cpus_per_task=pack_res("cpus_per_task"),
        gpu=pack_res("gpu"),
        runtime=pack_res("runtime"),
        mem_mb=pack_res("mem_mb"),
        slurm_extra=pack_res("slurm_extra"),
        mpi=pack_res("mpi"),
    params:
        points=lambda wildcards: PACKS[wildcards.pack],
    run:
        cs_packs.write_members(output[0], params.points, log[0])
