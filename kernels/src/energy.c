/* energy.c - placeholder until the powercap reader lands: always "no source". */
#include "energy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cs_energy_reading_none(cs_energy_reading *out, const char *note)
{
    memset(out, 0, sizeof *out);
    out->joules = out->joules_pkg = out->joules_core = out->joules_dram = NAN;
    out->joules_gpu = out->joules_h2d = out->joules_kernel = out->joules_d2h = NAN;
    snprintf(out->note, sizeof out->note, "%s", note ? note : "");
}

void cs_energy_open(cs_energy *e, const char *mode)
{
    memset(e, 0, sizeof *e);
    snprintf(e->note, sizeof e->note, "%s", (mode && strcmp(mode, "none") == 0)
             ? "energy disabled (--energy none)" : "energy reader not built");
}

void cs_energy_begin(cs_energy *e) { (void)e; }

void cs_energy_end(cs_energy *e, cs_energy_reading *out) { cs_energy_reading_none(out, e->note); }
