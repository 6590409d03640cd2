# ciphersweep: AES-128 kernel benchmark campaigns (see README).
from snakemake.utils import min_version

min_version("9.0")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/build.smk"
include: "workflow/rules/bench.smk"
include: "workflow/rules/history.smk"
include: "workflow/rules/analyse.smk"


rule all:
    default_target: True
    input:
        C.targets(),
