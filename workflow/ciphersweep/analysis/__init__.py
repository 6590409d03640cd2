"""Floor 4, the analysis: tables, comparisons with the published studies, plots, the
report and the results history."""
