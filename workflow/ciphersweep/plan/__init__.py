"""Floor 1, the plan: the configuration (schema, defaults, checks), the sweep of points,
the inputs, what each point's records must show (fingerprints), the resources needed."""
