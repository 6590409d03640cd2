"""Floor 1, the plan: the configuration (schema and defaults in ``schema``, checks in
``config_backends``, ``config_sections``, ``config_checks``, ``launch_checks``,
``layout_checks`` and ``study_files``, all run by ``config.validate``), the names
tables and comparisons are written in (``catalogue``), the sweep of points, the
inputs, what each point's records must show (fingerprints), the resources needed."""
