/* exit_status.h - the kernels' process exit statuses (docs/kernels.md). */
#ifndef CIPHERSWEEP_EXIT_STATUS_H
#define CIPHERSWEEP_EXIT_STATUS_H

enum { CS_EXIT_OK = 0, CS_EXIT_FAIL = 1, CS_EXIT_USAGE = 2 };

#endif
