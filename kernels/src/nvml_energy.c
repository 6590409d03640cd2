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
        "nvmlDeviceGetName", "nvmlSystemGetDriverVersion", "nvmlErrorString"};
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

void cs_nvml_energy_reading(const cs_nvml_energy *s, cs_energy_reading *out)
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
    out->joules_h2d = (double)(s->mark[1] - s->mark[0]) * 1e-3;
    out->joules_kernel = (double)(s->mark[2] - s->mark[1]) * 1e-3;
    out->joules_d2h = (double)(s->mark[3] - s->mark[2]) * 1e-3;
    out->joules_gpu = out->joules_h2d + out->joules_kernel + out->joules_d2h;
    out->joules = out->joules_gpu;
    out->source = "nvml";
    out->nodes = 1;
    snprintf(out->scope, sizeof out->scope, "gpu");
    snprintf(out->note, sizeof out->note,
             "whole-board GPU energy, 1 mJ units; the driver updates the counter "
             "periodically, so phases shorter than its update interval can read 0");
}

void cs_nvml_energy_close(cs_nvml_energy *s)
{
    if (s->initialised && s->api.shutdown) s->api.shutdown();
    s->initialised = 0;
    s->ok = 0;
    cs_nvml_unload(&s->api);
}
