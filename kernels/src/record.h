/* record.h - the JSON records of a run (record.c): one object a line per timed
 * repetition (or batch), the calibration trailer, and where they are written. */
#ifndef CIPHERSWEEP_RECORD_H
#define CIPHERSWEEP_RECORD_H

#include "median_ci.h"
#include "run.h"

/* The host a record was measured on (read once per run). */
typedef struct {
    char host[256];
    char cpu_model[256];
    int cpu_cores;
} cs_prov;

/* One record (one JSON object and a newline) appended to b. */
void cs_record(const cs_run *r, const cs_prov *p, cs_buf *b, int rep, int batch,
               const cs_timings *t, const cs_energy_reading *e, double user, double sys,
               double wall);
/* Fields every record gets once the repetitions are done (reps_run, stop_reason, CI). */
void cs_calib_trailer(cs_buf *b, cs_calib *c);
/* The records with the trailer added before each closing brace; 0 or -1. */
int cs_records_with_trailer(const cs_buf *in, const cs_buf *trailer, cs_buf *out);
/* The records to --json FILE or stdout; 0 or CS_EXIT_FAIL after one line. */
int cs_write_records(cs_run *r, const cs_buf *b);

#endif
