"""The tables of a campaign: the model (Table, Measured, Context), the cell formulas,
the builders and their registry, the layouts a campaign declares."""
