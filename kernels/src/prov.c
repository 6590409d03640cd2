/* prov.c - provenance of a record (host, CPU, compiler, build flags, time), CPU time and
 * the monotonic clock. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "prov.h"

#ifndef CS_BUILD_CFLAGS
#define CS_BUILD_CFLAGS ""
#endif

void cs_cpu_times(double *user, double *sys)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        *user = *sys = 0.0;
        return;
    }
    *user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
    *sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

double cs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cs_hostname(char *buf, size_t n)
{
    if (gethostname(buf, n) != 0)
        snprintf(buf, n, "unknown");
    buf[n - 1] = 0;
}

void cs_cpu_model(char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86: "model name"; some other architectures: "Model" or "cpu model" */
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
            strncmp(line, "cpu model", 9) == 0) {
            char *colon = strchr(line, ':');
            if (!colon)
                continue;
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, n, "%s", colon);
            break;
        }
    }
    fclose(f);
}

int cs_cpu_count(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

const char *cs_compiler(void)
{
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "unknown";
#endif
}

const char *cs_cflags(void) { return CS_BUILD_CFLAGS; }

void cs_timestamp(char *buf, size_t n)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%06ldZ", base, ts.tv_nsec / 1000);
}
