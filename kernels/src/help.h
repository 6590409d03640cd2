/* help.h - --help of a kernel binary (help.c): its own impls and options only. */
#ifndef CIPHERSWEEP_HELP_H
#define CIPHERSWEEP_HELP_H

#include "cli.h"

/* The usage text of prog on stdout. */
void cs_usage(const cs_prog_info *prog);

#endif
