/*
 * nvml_energy.h - GPU energy of aes-cuda's phases from NVML
 * (nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver was loaded,
 * Volta and newer), read before the host-to-device copy, between the copy and the
 * kernel, between the kernel and the device-to-host copy, and after it, so the energy
 * of transfers and of compute can be told apart.
 *
 * NVML is reached through a small table of function pointers. The real table is filled
 * by dlopen("libnvidia-ml.so.1") at run time, so aes-cuda starts (and says clearly that
 * there is no GPU) on machines without the driver, and inside containers the library
 * comes from the host driver (apptainer --nv, or ch-run with the driver bound in).
 * Tests put a double in the table (tests/test_cuda_nvml.c).
 */
#ifndef CIPHERSWEEP_NVML_ENERGY_H
#define CIPHERSWEEP_NVML_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "energy.h" /* C declarations without their own extern "C" */

typedef struct cs_nvml_device_st *cs_nvml_device; /* nvmlDevice_t */

/* The NVML entry points used, with NVML's ABI (nvmlReturn_t is an int-sized enum,
 * 0 = NVML_SUCCESS). Names in comments are the exported symbols. */
typedef struct {
    int (*init)(void);                                            /* nvmlInit_v2 */
    int (*shutdown)(void);                                        /* nvmlShutdown */
    int (*device_by_index)(unsigned index, cs_nvml_device *dev);  /* nvmlDeviceGetHandleByIndex_v2 */
    int (*device_by_pci_bus_id)(const char *bus_id, cs_nvml_device *dev); /* nvmlDeviceGetHandleByPciBusId_v2 */
    int (*total_energy)(cs_nvml_device dev, unsigned long long *mj); /* nvmlDeviceGetTotalEnergyConsumption */
    int (*device_name)(cs_nvml_device dev, char *name, unsigned len); /* nvmlDeviceGetName */
    int (*driver_version)(char *version, unsigned len);           /* nvmlSystemGetDriverVersion */
    const char *(*error_string)(int result);                      /* nvmlErrorString */
    void *lib;                                                    /* dlopen handle, or NULL */
} cs_nvml_api;

/* The phases, in order; a mark is taken at each boundary. */
enum { CS_NVML_BEFORE_H2D = 0, CS_NVML_BEFORE_KERNEL = 1, CS_NVML_BEFORE_D2H = 2,
       CS_NVML_AFTER_D2H = 3, CS_NVML_MARKS = 4 };

typedef struct {
    cs_nvml_api api;
    int ok;                           /* 1: energy can be read */
    int initialised;                  /* nvml init succeeded (shutdown needed) */
    cs_nvml_device dev;
    unsigned long long mark[CS_NVML_MARKS];
    int mark_ok[CS_NVML_MARKS];
    char mark_err[128];               /* first failing read of this repetition */
    char gpu_name[96];                /* "" when unknown */
    char driver[64];                  /* "" when unknown */
    char note[256];                   /* why not ok */
} cs_nvml_energy;

/* Fills api from libnvidia-ml.so.1. Returns 0, or -1 with err set
 * (e.g. "NVML not available: libnvidia-ml.so.1: cannot open shared object file ..."). */
int cs_nvml_load(cs_nvml_api *api, char *err, size_t cap);
void cs_nvml_unload(cs_nvml_api *api);

/* Opens the device: by PCI bus id when pci_bus_id is non-NULL and non-empty (the id
 * cudaDeviceGetPCIBusId gives, robust against CUDA_VISIBLE_DEVICES renumbering), else by
 * index. api NULL: load the real library. Never fails the run: s->ok = 0 and s->note
 * says why. Also fills gpu_name and driver where NVML gives them. */
void cs_nvml_energy_open(cs_nvml_energy *s, const cs_nvml_api *api, const char *pci_bus_id,
                         unsigned index);
/* Forget the marks of the previous repetition. */
void cs_nvml_energy_reset(cs_nvml_energy *s);
/* Reads the counter at a phase boundary (CS_NVML_BEFORE_H2D ... CS_NVML_AFTER_D2H). */
void cs_nvml_energy_mark(cs_nvml_energy *s, int which);
/* joules_h2d/kernel/d2h from the marks, joules_gpu = joules = their sum, source "nvml",
 * scope "gpu", nodes 1; or every value NAN with the note. */
void cs_nvml_energy_reading(const cs_nvml_energy *s, cs_energy_reading *out);
void cs_nvml_energy_close(cs_nvml_energy *s);

#ifdef __cplusplus
}
#endif
#endif
