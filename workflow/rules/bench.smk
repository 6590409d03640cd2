# One bench job per pack (ciphersweep.plan.resources.packs): small points of one
# resource shape share a pack (cluster.pack), every other point is a pack of its own.
# The job measures the pack's pending points one after another (ciphersweep.job.packs):
# those whose records do not hold; the others keep theirs. Resources come from the
# points (ciphersweep.plan.resources); `bench=1` lets a profile keep benchmark jobs from
# overlapping.


from ciphersweep.campaign import hangup as cs_hangup
from ciphersweep.campaign import lock as cs_lock
from ciphersweep.job import packs as cs_packs


# The busy checks' first window opens as the run starts (ciphersweep.job.busy): the
# run's first point does not wait for one. The run names itself beside its lock
# (ciphersweep.campaign.lock) and records SIGTERM (ciphersweep.campaign.hangup).
onstart:
    C.busy_monitor().open()
    cs_lock.claim(cs_seams.lock_dir(workflow))
    cs_hangup.record_terminate()


rule bench:
    input:
        unpack(pack_inputs),
    output:
        # update: the list stays in place while the job runs, so that a forced job
        # (nothing pending, the same list) is told from the others
        update(f"{RES}/packs/{{pack}}.txt"),
    log:
        f"{RES}/logs/packs/{{pack}}.log",
    wildcard_constraints:
        # not the generated inputs' list (rule inputs_made)
        pack=r"(?!inputs\.txt$)[A-Za-z0-9][A-Za-z0-9_.+-]*",
    # before the other jobs that hold `bench` (binary_sizes): the points first
    priority: 1
    threads:
        lambda wildcards: max(
            1,
            C.pack_resources[wildcards.pack]["tasks"]
            * C.pack_resources[wildcards.pack]["cpus_per_task"],
        )
    resources:
        nodes=pack_res("nodes"),
        tasks=pack_res("tasks"),
        cpus_per_task=pack_res("cpus_per_task"),
        gpu=pack_res("gpu"),
        runtime=pack_res("runtime"),
        mem_mb=pack_res("mem_mb"),
        bench=1,
        slurm_extra=pack_res("slurm_extra"),
        mpi=pack_res("mpi"),
    params:
        # every point's attempt token and plan key: a point whose records no longer
        # hold changes it, and Snakemake runs the pack (which measures that point)
        state=lambda wildcards: C.pack_state(wildcards.pack),
    run:
        cs_packs.run_pack(
            C.pack_members(wildcards.pack),
            output[0],
            log[0],
            C.point_done,
            C.busy_monitor(),
        )
