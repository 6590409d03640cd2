/*
 * nvml_energy.c - NVML energy of aes-cuda's phases (see nvml_energy.h).
 *
 * When the build finds NVML's own header (CS_HAVE_NVML_H), the signatures assumed
 * here are checked against it at compile time; the library itself is always opened at
 * run time with dlopen, so the binary does not need libnvidia-ml.so.1 to start.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "nvml_energy.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CS_HAVE_NVML_H
#include <nvml.h>
#define CS_SAME_TYPE(a, b) __builtin_types_compatible_p(__typeof__(a), b)
_Static_assert(sizeof(nvmlReturn_t) == sizeof(int), "nvmlReturn_t is int-sized");
_Static_assert(NVML_SUCCESS == 0, "NVML_SUCCESS is 0");
_Static_assert(CS_SAME_TYPE(nvmlInit_v2, nvmlReturn_t(void)), "nvmlInit_v2");
_Static_assert(CS_SAME_TYPE(nvmlShutdown, nvmlReturn_t(void)), "nvmlShutdown");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetHandleByIndex_v2,
                            nvmlReturn_t(unsigned int, nvmlDevice_t *)),
               "nvmlDeviceGetHandleByIndex_v2");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetHandleByPciBusId_v2,
                            nvmlReturn_t(const char *, nvmlDevice_t *)),
               "nvmlDeviceGetHandleByPciBusId_v2");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetTotalEnergyConsumption,
                            nvmlReturn_t(nvmlDevice_t, unsigned long long *)),
               "nvmlDeviceGetTotalEnergyConsumption");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetName, nvmlReturn_t(nvmlDevice_t, char *, unsigned int)),
               "nvmlDeviceGetName");
_Static_assert(CS_SAME_TYPE(nvmlSystemGetDriverVersion, nvmlReturn_t(char *, unsigned int)),
               "nvmlSystemGetDriverVersion");
_Static_assert(CS_SAME_TYPE(nvmlErrorString, const char *(nvmlReturn_t)), "nvmlErrorString");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetEnforcedPowerLimit,
                            nvmlReturn_t(nvmlDevice_t, unsigned int *)),
               "nvmlDeviceGetEnforcedPowerLimit");
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetClockInfo,
                            nvmlReturn_t(nvmlDevice_t, nvmlClockType_t, unsigned int *)),
               "nvmlDeviceGetClockInfo");
/* Deprecated in newer headers in favour of a versioned call, but exported by every
 * driver; the signature is still checked. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
_Static_assert(CS_SAME_TYPE(nvmlDeviceGetTemperature,
                            nvmlReturn_t(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *)),
               "nvmlDeviceGetTemperature");
#pragma GCC diagnostic pop
_Static_assert(sizeof(nvmlClockType_t) == sizeof(int) && (int)NVML_CLOCK_SM == (int)CS_NVML_CLOCK_SM &&
                   (int)NVML_CLOCK_MEM == (int)CS_NVML_CLOCK_MEM,
               "nvmlClockType_t");
_Static_assert(sizeof(nvmlTemperatureSensors_t) == sizeof(int) &&
                   (int)NVML_TEMPERATURE_GPU == (int)CS_NVML_TEMPERATURE_GPU,
               "nvmlTemperatureSensors_t");
#endif

static const char *const phase_name[CS_NVML_MARKS] = {"before H2D", "before kernel",
                                                       "before D2H", "after D2H"};

int cs_nvml_load(cs_nvml_api *api, char *err, size_t cap)
{
    memset(api, 0, sizeof *api);
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, cap, "NVML not available: %s", e ? e : "libnvidia-ml.so.1 not found");
        return -1;
    }
    static const char *const names[] = {
        "nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetHandleByIndex_v2",
        "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetTotalEnergyConsumption",
        "nvmlDeviceGetName", "nvmlSystemGetDriverVersion", "nvmlErrorString",
        "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetClockInfo", "nvmlDeviceGetTemperature"};
    void *sym[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sym[i] = dlsym(h, names[i]);
        if (!sym[i]) {
            snprintf(err, cap, "NVML not usable: libnvidia-ml.so.1 lacks %s", names[i]);
            dlclose(h);
            return -1;
        }
    }
    /* POSIX: dlsym's void * converts to a function pointer (memcpy keeps -Wpedantic quiet). */
    memcpy(&api->init, &sym[0], sizeof api->init);
    memcpy(&api->shutdown, &sym[1], sizeof api->shutdown);
    memcpy(&api->device_by_index, &sym[2], sizeof api->device_by_index);
    memcpy(&api->device_by_pci_bus_id, &sym[3], sizeof api->device_by_pci_bus_id);
    memcpy(&api->total_energy, &sym[4], sizeof api->total_energy);
    memcpy(&api->device_name, &sym[5], sizeof api->device_name);
    memcpy(&api->driver_version, &sym[6], sizeof api->driver_version);
    memcpy(&api->error_string, &sym[7], sizeof api->error_string);
    memcpy(&api->power_limit, &sym[8], sizeof api->power_limit);
    memcpy(&api->clock_info, &sym[9], sizeof api->clock_info);
    memcpy(&api->temperature, &sym[10], sizeof api->temperature);
    api->lib = h;
    return 0;
}

void cs_nvml_unload(cs_nvml_api *api)
{
    if (api->lib) dlclose(api->lib);
    memset(api, 0, sizeof *api);
}

static const char *errstr(const cs_nvml_api *api, int rc)
{
    const char *s = api->error_string ? api->error_string(rc) : NULL;
    return s ? s : "unknown error";
}

void cs_nvml_energy_open(cs_nvml_energy *s, const cs_nvml_api *api, const char *pci_bus_id,
                         unsigned index)
{
    memset(s, 0, sizeof *s);
    s->period_s = NAN;
    if (api) {
        s->api = *api;
        s->api.lib = NULL; /* not ours to close */
    } else if (cs_nvml_load(&s->api, s->note, sizeof s->note) != 0) {
        return;
    }
    int rc = s->api.init();
    if (rc != 0) {
        snprintf(s->note, sizeof s->note, "nvml: nvmlInit failed: %s", errstr(&s->api, rc));
        return;
    }
    s->initialised = 1;
    char ver[64] = "";
    if (s->api.driver_version(ver, sizeof ver) == 0) snprintf(s->driver, sizeof s->driver, "%s", ver);
    if (pci_bus_id && *pci_bus_id) {
        rc = s->api.device_by_pci_bus_id(pci_bus_id, &s->dev);
        if (rc != 0) {
            snprintf(s->note, sizeof s->note, "nvml: no device with PCI bus id %s: %s",
                     pci_bus_id, errstr(&s->api, rc));
            return;
        }
    } else {
        rc = s->api.device_by_index(index, &s->dev);
        if (rc != 0) {
            snprintf(s->note, sizeof s->note, "nvml: no device %u: %s", index, errstr(&s->api, rc));
            return;
        }
    }
    char name[96] = "";
    if (s->api.device_name(s->dev, name, sizeof name) == 0)
        snprintf(s->gpu_name, sizeof s->gpu_name, "%s", name);
    /* Probe once: pre-Volta GPUs answer NVML_ERROR_NOT_SUPPORTED. */
    unsigned long long mj = 0;
    rc = s->api.total_energy(s->dev, &mj);
    if (rc != 0) {
        snprintf(s->note, sizeof s->note, "nvml: nvmlDeviceGetTotalEnergyConsumption: %s",
                 errstr(&s->api, rc));
        return;
    }
    s->ok = 1;
}

void cs_nvml_energy_reset(cs_nvml_energy *s)
{
    memset(s->mark, 0, sizeof s->mark);
    memset(s->mark_ok, 0, sizeof s->mark_ok);
    s->mark_err[0] = '\0';
}

void cs_nvml_energy_mark(cs_nvml_energy *s, int which)
{
    if (!s->ok || which < 0 || which >= CS_NVML_MARKS) return;
    unsigned long long mj = 0;
    int rc = s->api.total_energy(s->dev, &mj);
    if (rc == 0) {
        s->mark[which] = mj;
        s->mark_ok[which] = 1;
    } else if (!s->mark_err[0]) {
        snprintf(s->mark_err, sizeof s->mark_err,
                 "nvml: nvmlDeviceGetTotalEnergyConsumption failed %s: %s", phase_name[which],
                 errstr(&s->api, rc));
    }
}

/* A phase that is not a measurement: why, or "" when it is one. */
static void phase_problem(const cs_nvml_energy *s, int i, unsigned long long mj,
                          const double phase_s[3], char *why, size_t cap)
{
    static const char *const name[3] = {"H2D", "kernel", "D2H"};
    why[0] = '\0';
    if (phase_s && !isnan(s->period_s) && phase_s[i] < s->period_s)
        snprintf(why, cap, "%s phase (%.3g ms) shorter than the counter's update period (%.3g ms)",
                 name[i], phase_s[i] * 1e3, s->period_s * 1e3);
    else if (mj == 0)
        snprintf(why, cap, "counter did not advance over the %s phase (below its resolution)",
                 name[i]);
}

void cs_nvml_energy_reading(const cs_nvml_energy *s, const double phase_s[3],
                            cs_energy_reading *out)
{
    if (!s->ok) {
        cs_energy_reading_none(out, s->note[0] ? s->note : "nvml: not opened");
        return;
    }
    for (int i = 0; i < CS_NVML_MARKS; i++) {
        if (!s->mark_ok[i]) {
            char why[160];
            if (s->mark_err[0]) snprintf(why, sizeof why, "%s", s->mark_err);
            else snprintf(why, sizeof why, "nvml: no reading %s", phase_name[i]);
            cs_energy_reading_none(out, why);
            return;
        }
        if (i && s->mark[i] < s->mark[i - 1]) {
            cs_energy_reading_none(out, "nvml: energy counter went backwards (driver reloaded?)");
            return;
        }
    }
    cs_energy_reading_none(out, NULL);
    double *phase[3] = {&out->joules_h2d, &out->joules_kernel, &out->joules_d2h};
    char first[128] = "";
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        const unsigned long long mj = s->mark[i + 1] - s->mark[i];
        char why[128];
        phase_problem(s, i, mj, phase_s, why, sizeof why);
        if (why[0]) {
            if (!bad++) snprintf(first, sizeof first, "%s", why);
            continue;
        }
        *phase[i] = (double)mj * 1e-3;
    }
    out->source = "nvml";
    out->nodes = 1;
    snprintf(out->scope, sizeof out->scope, "gpu");
    if (bad) {
        snprintf(out->note, sizeof out->note,
                 "nvml: per-repetition reading is not a measurement: %s%s", first,
                 bad > 1 ? " (and more phases)" : "");
        return;
    }
    out->joules_gpu = out->joules_h2d + out->joules_kernel + out->joules_d2h;
    out->joules = out->joules_gpu;
    snprintf(out->note, sizeof out->note, "whole-board GPU energy, 1 mJ units");
}

int cs_nvml_read_mj(const cs_nvml_energy *s, unsigned long long *mj)
{
    if (!s->ok) return -1;
    return s->api.total_energy(s->dev, mj);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cs_nvml_detect_period(cs_nvml_energy *s, double (*clock)(void *), void (*sleep)(void *, double),
                             void *ctx, double timeout_s, char *note, size_t cap)
{
    enum { CHANGES = 6 };
    double at[CHANGES], gap[CHANGES - 1];
    unsigned long long last = 0, mj = 0;
    int seen = 0, rc = cs_nvml_read_mj(s, &last);
    const double t0 = clock(ctx);
    s->period_s = NAN;
    while (rc == 0 && seen < CHANGES) {
        const double t = clock(ctx);
        if (t - t0 > timeout_s) {
            snprintf(note, cap, "nvml: energy counter changed %d time(s) in %.3g s", seen, timeout_s);
            return NAN;
        }
        rc = cs_nvml_read_mj(s, &mj);
        if (rc == 0 && mj != last) {
            at[seen++] = t;
            last = mj;
        } else if (rc == 0) {
            sleep(ctx, 0.0005);
        }
    }
    if (rc != 0) {
        snprintf(note, cap, "nvml: reading the energy counter failed: %s", errstr(&s->api, rc));
        return NAN;
    }
    for (int i = 0; i + 1 < CHANGES; i++) gap[i] = at[i + 1] - at[i];
    qsort(gap, CHANGES - 1, sizeof gap[0], cmp_double);
    s->period_s = gap[(CHANGES - 1) / 2];
    snprintf(note, cap, "counter update period %.3g ms (median of %d gaps)", s->period_s * 1e3,
             CHANGES - 1);
    return s->period_s;
}

void cs_nvml_window_plan_for(double period_s, cs_nvml_window_plan *p)
{
    const double updates = 10.0 * period_s;
    if (!isnan(period_s) && updates > 1.0) {
        p->target_s = updates;
        p->basis = "10 counter updates";
    } else {
        p->target_s = 1.0;
        p->basis = "1 s";
    }
}

void cs_nvml_window_result_for(const cs_nvml_window_plan *p, unsigned long long e0_mj,
                               unsigned long long e1_mj, double window_s, long reps,
                               cs_nvml_window_result *out)
{
    out->joules_per_rep = NAN;
    out->window_s = window_s;
    out->reps = reps;
    out->note[0] = '\0';
    if (reps < 1)
        snprintf(out->note, sizeof out->note, "no repetition in the energy window");
    else if (window_s < p->target_s)
        snprintf(out->note, sizeof out->note, "energy window %.3g s shorter than the %.3g s needed (%s)",
                 window_s, p->target_s, p->basis);
    else if (e1_mj < e0_mj)
        snprintf(out->note, sizeof out->note, "nvml: energy counter went backwards in the window");
    else if (e1_mj == e0_mj)
        snprintf(out->note, sizeof out->note, "nvml: energy counter did not advance in %.3g s",
                 window_s);
    else
        out->joules_per_rep = (double)(e1_mj - e0_mj) * 1e-3 / (double)reps;
}

void cs_nvml_gpu_state_read(const cs_nvml_energy *s, cs_nvml_gpu_state *st)
{
    unsigned v = 0;
    st->power_limit_w = st->sm_mhz = st->mem_mhz = st->temp_c = NAN;
    if (!s->initialised || !s->dev) return;
    if (s->api.power_limit && s->api.power_limit(s->dev, &v) == 0) st->power_limit_w = v * 1e-3;
    if (s->api.clock_info && s->api.clock_info(s->dev, CS_NVML_CLOCK_SM, &v) == 0) st->sm_mhz = v;
    if (s->api.clock_info && s->api.clock_info(s->dev, CS_NVML_CLOCK_MEM, &v) == 0) st->mem_mhz = v;
    if (s->api.temperature && s->api.temperature(s->dev, CS_NVML_TEMPERATURE_GPU, &v) == 0)
        st->temp_c = v;
}

void cs_nvml_energy_close(cs_nvml_energy *s)
{
    if (s->initialised && s->api.shutdown) s->api.shutdown();
    s->initialised = 0;
    s->ok = 0;
    cs_nvml_unload(&s->api);
}
