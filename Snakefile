# ciphersweep: AES-128 kernel benchmark campaigns (see README).
from snakemake.utils import min_version

# the oldest Snakemake the test suite runs the default campaign with (requirements.txt
# pins it); the project reads Snakemake beyond its documented interfaces in one module,
# ciphersweep.campaign.seams, which says where and why
min_version("9.27.1")


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
