"""Floor 0: what every stage uses and that uses nothing of the package (sizes, atomic
files, strict YAML, the cipher catalogue, the statistics, file digests)."""
