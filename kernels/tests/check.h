/*
 * check.h - the counters and CHECK() macro shared by the C test programs: a failing
 * check prints file, line, the condition and a message, and the run goes on so that
 * one program reports every failure; main() ends with the totals.
 */
#ifndef CIPHERSWEEP_TESTS_CHECK_H
#define CIPHERSWEEP_TESTS_CHECK_H

#include <stdio.h>

static int g_pass, g_fail;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (cond) {                                                                   \
            g_pass++;                                                                 \
        } else {                                                                      \
            g_fail++;                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

#endif
