# Gather every point's records into tidy tables, then speedup tables, plots and the
# report. Table builders are listed in ciphersweep.tables (extra builders plug in there).
# They are light: under Slurm they run where Snakemake runs, not as jobs.


localrules:
    gather,
    tables,
    plots,


rule gather:
    input:
        [f"{RES}/raw/{pid}.jsonl" for pid in POINTS],
    output:
        csv=report(
            f"{RES}/measurements.csv",
            caption="../report/measurements.rst",
            category="Measurements",
        ),
        parquet=f"{RES}/measurements.parquet",
        failures=report(
            f"{RES}/failures.csv",
            caption="../report/failures.rst",
            category="Measurements",
        ),
        summary=report(
            f"{RES}/summary.csv",
            caption="../report/summary.rst",
            category="Measurements",
        ),
    log:
        f"{RES}/logs/gather.log",
    run:
        cs_records.gather_files(list(input), POINT_LIST, output, log[0])


rule tables:
    input:
        summary=f"{RES}/summary.csv",
        measurements=f"{RES}/measurements.parquet",
        failures=f"{RES}/failures.csv",
    output:
        [table_report(f) if f.endswith(".csv") else f for f in table_files()],
    log:
        f"{RES}/logs/tables.log",
    run:
        cs_tables.write_tables(CFG, POINT_LIST, input, f"{RES}/tables", log[0])


rule plots:
    input:
        summary=f"{RES}/summary.csv",
    output:
        [
            report(f, caption="../report/plots.rst", category="Plots")
            for f in plot_files()
        ],
    log:
        f"{RES}/logs/plots.log",
    run:
        cs_plots.write_plots(CFG, POINT_LIST, input.summary, f"{RES}/plots", log[0])
