"""The tables of a campaign, bottom to top: :mod:`.model` (Table, Measured, Context,
Builder, the cell states, row labels and baselines), :mod:`.formulas` (speedup,
efficiency, throughput and the cells made of them, one place each), the builders
(:mod:`.generic`, :mod:`.energy`, :mod:`.provenance`, :mod:`.build`; the layouts a
campaign declares: :mod:`.layouts` reads them, :mod:`.layout_tables` builds them) and
:mod:`.registry`, the plain list of every builder."""
