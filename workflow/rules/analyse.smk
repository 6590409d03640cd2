# Gather every point's records into tidy tables, then speedup tables, plots and the
# report (one self-contained HTML page). Every table builder is listed in
# ciphersweep.analysis.tables.registry. They are light: under Slurm they run where Snakemake
# runs, not as jobs. Their outputs are `update`: written all or nothing
# (ciphersweep.core.atomic), and a failed analysis keeps the previous ones (Snakemake
# restores them instead of deleting them).


from ciphersweep.analysis import compare as cs_compare
from ciphersweep.analysis import plots as cs_plots
from ciphersweep.analysis import report as cs_report
from ciphersweep.analysis.tables import registry as cs_registry


localrules:
    gather,
    tables,
    plots,
    report,


rule gather:
    input:
        packs=C.pack_files,
    output:
        csv=report(
            update(f"{RES}/measurements.csv"),
            caption="../report/measurements.rst",
            category="Measurements",
        ),
        parquet=update(f"{RES}/measurements.parquet"),
        failures=report(
            update(f"{RES}/failures.csv"),
            caption="../report/failures.rst",
            category="Measurements",
        ),
        summary=report(
            update(f"{RES}/summary.csv"),
            caption="../report/summary.rst",
            category="Measurements",
        ),
    log:
        f"{RES}/logs/gather.log",
    params:
        judged=lambda wildcards: C.judged(),
        judge_code=lambda wildcards: C.judge_code(),
        basis=CAPTION_BASIS,  # for the captions (workflow/report)
    run:
        cs_console.write_step(output, C.gather, output, log[0])


rule tables:
    input:
        summary=f"{RES}/summary.csv",
        measurements=f"{RES}/measurements.parquet",
        failures=f"{RES}/failures.csv",
        sizes=C.size_files(),
        refs=C.compare_inputs(),  # the published and claims tables come from these
    output:
        [table_report(f) if f.endswith(".csv") else update(f) for f in C.table_files()],
    log:
        f"{RES}/logs/tables.log",
    params:
        basis=CAPTION_BASIS,
    run:
        cs_console.write_step(
            output,
            cs_registry.write_tables,
            C.cfg,
            C.point_list,
            input,
            f"{RES}/tables",
            log[0],
            C.host_facts,
        )


rule plots:
    input:
        summary=f"{RES}/summary.csv",
    output:
        [
            report(
                update(f),
                caption="../report/plots.rst",
                category="Plots",
                subcategory=os.path.basename(f).removesuffix(".png"),
            )
            for f in C.plot_files()
        ],
        [update(f) for f in C.plot_files("pdf")],
        [update(f) for f in C.plot_files("svg")],
    log:
        f"{RES}/logs/plots.log",
    # started first of the steps after gather (the profiles' cores are few): its
    # drawing is the longest of them, and the report waits for it
    priority: 1
    params:
        basis=CAPTION_BASIS,
    run:
        cs_console.write_step(
            output,
            cs_plots.write_plots,
            C.cfg,
            C.point_list,
            input.summary,
            f"{RES}/plots",
            log[0],
            C.drawing,
        )


rule report:
    input:
        summary=f"{RES}/summary.csv",
        measurements=f"{RES}/measurements.parquet",
        failures=f"{RES}/failures.csv",
        tables=C.table_files(),
        plots=C.plot_files(),
        history=C.history_report(),  # the history section (history.enabled)
    output:
        report(
            C.report_file,
            caption="../report/report.rst",
            category="Report",
        ),
    log:
        f"{RES}/logs/report.log",
    params:
        basis=CAPTION_BASIS,
    run:
        cs_console.write_step(
            output,
            cs_report.write_report,
            C.cfg,
            C.point_list,
            input,
            output[0],
            log[0],
            C.host_facts,
        )


# The few lines a campaign ends with (ciphersweep.campaign.console): points measured and
# failed, noisy cells, where the tables, plots and report are.
onsuccess:
    campaign_summary(ok=True)


onerror:
    campaign_summary(ok=False)


# Measured cells next to the references the campaign names under `compare` (the
# study's published numbers and claims, another campaign, performance references).
if C.compare_files:

    localrules:
        compare,

    rule compare:
        input:
            summary=f"{RES}/summary.csv",
            refs=C.compare_inputs(),
        output:
            [
                (
                    report(
                        f,
                        caption="../report/comparison.rst",
                        category="Comparison",
                    )
                    if f.endswith(".csv")
                    else f
                )
                for f in C.compare_files
            ],
        log:
            f"{RES}/logs/compare.log",
        params:
            basis=CAPTION_BASIS,
        run:
            cs_console.write_step(
                output,
                cs_compare.write,
                C.cfg,
                C.point_list,
                input.summary,
                f"{RES}/compare",
                log[0],
            )
            warn(C.reference_warnings(f"{RES}/compare/references.csv"))


# A cell outside its performance reference fails the run here, after every table and
# comparison is written (a failed job removes only its own marker file).
if C.reference_check:

    localrules:
        reference_check,

    rule reference_check:
        input:
            refs=f"{RES}/compare/references.csv",
            tables=C.table_files(),
            report=C.report_file,
        output:
            touch(f"{RES}/compare/references.ok"),
        run:
            fail_if(C.reference_failure(input.refs))
