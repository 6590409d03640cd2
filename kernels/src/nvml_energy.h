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
 *
 * Resolution.  The driver updates the counter periodically (about every 100 ms on an
 * H100), so a phase shorter than that reads 0 or one update's worth: such a reading is
 * never a measurement.  The update period is detected at start (cs_nvml_detect_period);
 * a per-phase reading is null with the reason when the phase is shorter than the period
 * or the counter did not advance; energy worth recording comes from a window of
 * back-to-back repetitions at least max(1 s, 10 updates) long, opened and closed on a
 * counter update (cs_nvml_window_*), giving joules per repetition.
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
    int (*power_limit)(cs_nvml_device dev, unsigned *mw);         /* nvmlDeviceGetEnforcedPowerLimit */
    int (*clock_info)(cs_nvml_device dev, int type, unsigned *mhz); /* nvmlDeviceGetClockInfo */
    int (*temperature)(cs_nvml_device dev, int sensor, unsigned *c); /* nvmlDeviceGetTemperature */
    void *lib;                                                    /* dlopen handle, or NULL */
} cs_nvml_api;

/* nvmlClockType_t / nvmlTemperatureSensors_t values used (checked against nvml.h). */
enum { CS_NVML_CLOCK_SM = 1, CS_NVML_CLOCK_MEM = 2, CS_NVML_TEMPERATURE_GPU = 0 };

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
    double period_s;                  /* counter update period (NAN: not detected) */
} cs_nvml_energy;

/* The GPU's state for provenance; NAN where NVML does not say. */
typedef struct {
    double power_limit_w, sm_mhz, mem_mhz, temp_c;
} cs_nvml_gpu_state;

/* An energy window: at least target_s long (basis says which rule set it). */
typedef struct {
    double target_s;
    const char *basis;                /* "1 s" or "10 counter updates" */
} cs_nvml_window_plan;

typedef struct {
    double joules_per_rep;            /* NAN with note when not a measurement */
    double window_s;
    long reps;
    char note[160];
} cs_nvml_window_result;

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
/* One reading of the counter (mJ); 0, or an NVML error code (-1 when not open). */
int cs_nvml_read_mj(const cs_nvml_energy *s, unsigned long long *mj);
/* Detects the counter's update period: polls it (clock() seconds, sleeping sleep_s
 * between reads) until it has changed 6 times, and takes the median of the 5 gaps between
 * changes.  Sets s->period_s and returns it, or NAN with the reason in note (no change
 * within timeout_s, a failing read). */
double cs_nvml_detect_period(cs_nvml_energy *s, double (*clock)(void *), void (*sleep)(void *, double),
                             void *ctx, double timeout_s, char *note, size_t cap);
/* The window a measurement needs with this update period: max(1 s, 10 updates). */
void cs_nvml_window_plan_for(double period_s, cs_nvml_window_plan *p);
/* J per repetition from the counter at the window's two ends (mJ), its length and the
 * repetitions run inside it; NAN with the reason when it is not a measurement (no
 * repetitions, window shorter than planned, counter not advanced or backwards). */
void cs_nvml_window_result_for(const cs_nvml_window_plan *p, unsigned long long e0_mj,
                               unsigned long long e1_mj, double window_s, long reps,
                               cs_nvml_window_result *out);
/* Power limit, SM and memory clocks, temperature (NAN where unavailable). */
void cs_nvml_gpu_state_read(const cs_nvml_energy *s, cs_nvml_gpu_state *st);

/* Forget the marks of the previous repetition. */
void cs_nvml_energy_reset(cs_nvml_energy *s);
/* Reads the counter at a phase boundary (CS_NVML_BEFORE_H2D ... CS_NVML_AFTER_D2H). */
void cs_nvml_energy_mark(cs_nvml_energy *s, int which);
/* joules_h2d/kernel/d2h from the marks, joules_gpu = joules = their sum, source "nvml",
 * scope "gpu", nodes 1; or every value NAN with the note.  phase_s (may be NULL): the
 * phases' durations; a phase shorter than s->period_s, or one over which the counter
 * did not advance, is NAN with the reason (never 0), and so is the sum. */
void cs_nvml_energy_reading(const cs_nvml_energy *s, const double phase_s[3],
                            cs_energy_reading *out);
void cs_nvml_energy_close(cs_nvml_energy *s);

#ifdef __cplusplus
}
#endif
#endif
