# The results history (ciphersweep.analysis.history): a finished campaign appends its cells to
# the store (history.path; opt out with history.enabled: false), and the `history`
# target writes the campaign's runs, the latest run's regressions and trend plots.
# While the workflow is parsed the store is only checked, read-only, before any job
# (ciphersweep.campaign.preflight): a file that is not a store stops the run at once.
localrules:
    history,
    history_check,


if C.history["enabled"]:

    localrules:
        history_append,

    rule history_append:
        input:
            summary=f"{RES}/summary.csv",
            measurements=f"{RES}/measurements.parquet",
        output:
            C.history_marker,
        log:
            f"{RES}/logs/history_append.log",
        params:
            store=C.history["path"],
            kernels=lambda wildcards: C.kernel_digests(),
        run:
            history_step(
                output,
                cs_history.append_campaign,
                C.cfg,
                RES,
                output[0],
                params.kernels,
                PROJECT,
                log[0],
            )


rule history:
    input:
        C.history_marker if C.history["enabled"] else f"{RES}/summary.csv",
    output:
        **{
            k: (
                report(update(f), caption="../report/history.rst", category="History")
                if k == "regressions_csv"
                else update(f)
            )
            for k, f in C.history_tables.items()
        },
        plots=[
            (
                report(update(f), caption="../report/history.rst", category="History")
                if f.endswith(".png")
                else update(f)
            )
            for f in C.history_plots
        ],
    log:
        f"{RES}/logs/history.log",
    params:
        compare_machines=C.history["compare_machines"],
        min_change=C.history["min_change"],
        basis=CAPTION_BASIS,  # for the captions (workflow/report)
    run:
        history_step(
            output, cs_history.write_history, C.cfg, output, log[0], C.drawing
        )
        warn(C.inconclusive_warnings(output.regressions_csv))


# A cell slower than before beyond both intervals fails the run here, after every
# table, plot and the report are written (history.fail_on_regression: true, or this
# rule named as a target on the command line).
rule history_check:
    input:
        regressions=C.history_tables["regressions_csv"],
        tables=C.table_files(),
        report=C.report_file,
    output:
        touch(C.history_check),
    log:
        f"{RES}/logs/history_check.log",
    run:
        fail_if(C.regression_failure(input.regressions))
