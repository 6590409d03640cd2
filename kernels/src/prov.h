/* prov.h - provenance of a record, CPU time and the clock (prov.c). */
#ifndef CIPHERSWEEP_PROV_H
#define CIPHERSWEEP_PROV_H

#include <stddef.h>

void cs_cpu_times(double *user, double *sys); /* getrusage(RUSAGE_SELF) */
double cs_now(void);                         /* CLOCK_MONOTONIC in seconds */
void cs_hostname(char *buf, size_t n);
void cs_cpu_model(char *buf, size_t n);       /* empty when unknown */
int cs_cpu_count(void);
const char *cs_compiler(void);
const char *cs_cflags(void);
void cs_timestamp(char *buf, size_t n);       /* ISO 8601 UTC, microseconds */

#endif
