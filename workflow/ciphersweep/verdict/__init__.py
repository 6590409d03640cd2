"""Floor 3, the verdict: whether a record is admitted for its point (schema,
fingerprint, verification) and the raw records of a point gathered into rows."""
