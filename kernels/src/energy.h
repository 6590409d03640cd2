/*
 * energy.h - energy of a kernel's timed region, read by the kernel itself.
 *
 * Sources, in the order they are tried (the likwid-perfctr wrapper is applied from
 * outside by the workflow's launch line; see likwid_marker.h for the marker region):
 *   rapl  - RAPL counters through the Linux powercap sysfs interface
 *           (<root>/intel-rapl:*, also used on AMD), root = $CIPHERSWEEP_POWERCAP_ROOT
 *           or /sys/class/powercap; wrap-around handled with max_energy_range_uj.
 *   none  - joules = NAN and a note saying why (never 0, never a guess).
 * GPU energy (NVML) is read by aes-cuda itself and reported in the same reading struct.
 *
 * No global state: the caller owns a cs_energy and passes it around.
 */
#ifndef CIPHERSWEEP_ENERGY_H
#define CIPHERSWEEP_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#define CS_ENERGY_MAX_DOMAINS 16

typedef struct {
    char name[32];          /* powercap "name" file: package-0, core, dram, ... */
    char path[512];         /* directory of the zone */
    uint64_t max_range_uj;  /* max_energy_range_uj: where the counter wraps */
    uint64_t start_uj;      /* reading taken by cs_energy_begin */
    int ok;                 /* 1 when energy_uj was readable at open */
} cs_energy_domain;

typedef struct {
    int active;             /* 1: a source is in use (rapl) */
    int ndomains;
    cs_energy_domain domain[CS_ENERGY_MAX_DOMAINS];
    char note[256];         /* why no source, or caveats */
} cs_energy;

typedef struct {
    double joules;          /* total of the timed region; NAN when unmeasured */
    double joules_pkg;      /* per scope, NAN when absent */
    double joules_core;
    double joules_dram;
    double joules_gpu;
    double joules_h2d;      /* aes-cuda: NVML split by phase */
    double joules_kernel;
    double joules_d2h;
    const char *source;     /* "rapl", "nvml", "likwid" or NULL */
    char scope[64];         /* e.g. "package+dram", "gpu" */
    int nodes;              /* nodes summed (MPI: one reader rank per node) */
    char note[512];         /* reason when joules is NAN, or caveats */
} cs_energy_reading;

/* mode: "auto" | "rapl" | "none". Never fails the run: when no source is usable,
 * e->active = 0 and e->note says why (e.g. "powercap not present",
 * "permission denied on .../energy_uj"). */
void cs_energy_open(cs_energy *e, const char *mode);
/* Immediately before the timed region. */
void cs_energy_begin(cs_energy *e);
/* Immediately after the timed region: fills out (NAN + note when inactive). */
void cs_energy_end(cs_energy *e, cs_energy_reading *out);
/* A reading with every value NAN, source NULL, nodes 0 and the given note. */
void cs_energy_reading_none(cs_energy_reading *out, const char *note);

#endif
