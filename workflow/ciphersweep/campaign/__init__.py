"""Floor 5, the campaign as Snakemake runs it: the checks before any job starts and
the lines the console shows."""
