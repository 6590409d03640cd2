/*
 * test_cuda_nvml.c - aes-cuda's NVML energy bookkeeping (nvml_energy.c) on a machine
 * without a GPU: a scripted NVML stands in through the function-pointer table, and the
 * real loader is exercised too (where libnvidia-ml.so.1 is missing it must say so).
 *   - the split into H2D / kernel / D2H and their sum, in joules (NVML gives mJ)
 *   - failures at every step (init, device lookup, unsupported energy counter, a failing
 *     read in the middle, a counter going backwards) give NaN values and a note
 *   - device lookup by PCI bus id is preferred over the index
 *   - a phase shorter than the counter's update period, or one over which the counter did
 *     not advance, is null with the reason, never 0
 *   - the update-period detection against a counter that ticks every 100 ms (and 20 ms,
 *     and never) on a simulated clock; the energy window's plan (max(1 s, 10 updates))
 *     and its joules per repetition; power limit, clocks and temperature
 */
#include "nvml_energy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"


#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* The scripted NVML. Return codes follow nvml.h: 0 success, 2 invalid argument,
 * 3 not supported, 6 not found, 9 driver not loaded. */
static struct {
    int init_rc, index_rc, pci_rc, energy_rc_at_call; /* energy_rc_at_call: fail that call (1-based) */
    unsigned long long counter[12];
    int calls, inits, shutdowns, by_pci, by_index;
    int unsupported;
    char last_bus_id[64];
    double now, period;   /* simulated clock; counter ticks every `period` s when > 0 */
    int reads;
} F;

static struct cs_nvml_device_st { int dummy; } the_device;

static int f_init(void) { F.inits++; return F.init_rc; }
static int f_shutdown(void) { F.shutdowns++; return 0; }
static int f_by_index(unsigned i, cs_nvml_device *d)
{
    F.by_index++;
    if (F.index_rc || i != 0) return F.index_rc ? F.index_rc : 2;
    *d = &the_device;
    return 0;
}
static int f_by_pci(const char *id, cs_nvml_device *d)
{
    F.by_pci++;
    snprintf(F.last_bus_id, sizeof F.last_bus_id, "%s", id);
    if (F.pci_rc) return F.pci_rc;
    *d = &the_device;
    return 0;
}
static int f_energy(cs_nvml_device d, unsigned long long *mj)
{
    if (d != &the_device) return 2;
    if (F.unsupported) return 3;
    if (F.period > 0) { /* 150 W board: +15 J per 100 ms tick */
        F.reads++;
        *mj = 1000000ull + (unsigned long long)(F.now / F.period) * (unsigned long long)(150000 * F.period);
        return 0;
    }
    int call = F.calls++;
    if (F.energy_rc_at_call && call + 1 == F.energy_rc_at_call) return 9;
    *mj = F.counter[call < 12 ? call : 11];
    return 0;
}
static int f_name(cs_nvml_device d, char *name, unsigned len)
{
    (void)d;
    snprintf(name, len, "NVIDIA H100 80GB HBM3");
    return 0;
}
static int f_driver(char *v, unsigned len)
{
    snprintf(v, len, "580.82.07");
    return 0;
}
static const char *f_err(int rc)
{
    switch (rc) {
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 6: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

static int f_power_limit(cs_nvml_device d, unsigned *mw)
{
    (void)d;
    *mw = 700000;
    return 0;
}
static int f_clock(cs_nvml_device d, int type, unsigned *mhz)
{
    (void)d;
    if (type == CS_NVML_CLOCK_SM) *mhz = 1980;
    else if (type == CS_NVML_CLOCK_MEM) *mhz = 2619;
    else return 2;
    return 0;
}
static int f_temp(cs_nvml_device d, int sensor, unsigned *c)
{
    (void)d;
    if (sensor != CS_NVML_TEMPERATURE_GPU) return 2;
    *c = 41;
    return 3 * (F.unsupported != 0); /* "Not Supported" when asked to fail */
}

static const cs_nvml_api FAKE = {f_init,   f_shutdown, f_by_index,    f_by_pci, f_energy,
                                 f_name,   f_driver,   f_err,         f_power_limit,
                                 f_clock,  f_temp,     NULL};

/* The simulated clock: each look at it costs 0.1 ms, sleeping advances it. */
static double fake_clock(void *ctx)
{
    (void)ctx;
    F.now += 0.0001;
    return F.now;
}
static void fake_sleep(void *ctx, double s)
{
    (void)ctx;
    F.now += s;
}

static void reset_fake(void)
{
    memset(&F, 0, sizeof F);
}

static void one_rep(cs_nvml_energy *s)
{
    cs_nvml_energy_reset(s);
    for (int m = CS_NVML_BEFORE_H2D; m <= CS_NVML_AFTER_D2H; m++) cs_nvml_energy_mark(s, m);
}

static void test_split_and_sum(void)
{
    reset_fake();
    /* call 0 is the probe at open; then one repetition of 4 marks, then another */
    unsigned long long c[9] = {1000, 5000, 5250, 12750, 13000, 20000, 20000, 20500, 20500};
    memcpy(F.counter, c, sizeof c);
    cs_nvml_energy s;
    cs_energy_reading r;
    cs_nvml_energy_open(&s, &FAKE, "00000000:1B:00.0", 0);
    CHECK(s.ok, "open ok: '%s'", s.note);
    CHECK(F.by_pci == 1 && F.by_index == 0 && strcmp(F.last_bus_id, "00000000:1B:00.0") == 0,
          "looked up by PCI bus id");
    CHECK(strcmp(s.gpu_name, "NVIDIA H100 80GB HBM3") == 0, "name '%s'", s.gpu_name);
    CHECK(strcmp(s.driver, "580.82.07") == 0, "driver '%s'", s.driver);

    one_rep(&s); /* 5000, 5250, 12750, 13000 */
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(NEAR(r.joules_h2d, 0.25), "h2d %.6f", r.joules_h2d);
    CHECK(NEAR(r.joules_kernel, 7.5), "kernel %.6f", r.joules_kernel);
    CHECK(NEAR(r.joules_d2h, 0.25), "d2h %.6f", r.joules_d2h);
    CHECK(NEAR(r.joules_gpu, 8.0) && NEAR(r.joules, 8.0), "sum %.6f %.6f", r.joules_gpu, r.joules);
    CHECK(r.source && strcmp(r.source, "nvml") == 0, "source");
    CHECK(strcmp(r.scope, "gpu") == 0 && r.nodes == 1, "scope '%s' nodes %d", r.scope, r.nodes);
    CHECK(isnan(r.joules_pkg) && isnan(r.joules_dram) && isnan(r.joules_core), "no cpu values");

    one_rep(&s); /* 20000, 20000, 20500, 20500: a phase below the counter's resolution */
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules_h2d) && NEAR(r.joules_kernel, 0.5) && isnan(r.joules_d2h),
          "second rep %.3f %.3f %.3f: 0 J is never recorded", r.joules_h2d, r.joules_kernel,
          r.joules_d2h);
    CHECK(isnan(r.joules) && isnan(r.joules_gpu), "no sum over a phase that is not measured");
    CHECK(strstr(r.note, "did not advance over the H2D phase") != NULL, "reason: '%s'", r.note);
    cs_nvml_energy_close(&s);
    CHECK(F.inits == 1 && F.shutdowns == 1, "init/shutdown paired");

    /* no bus id: by index */
    reset_fake();
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    CHECK(s.ok && F.by_index == 1 && F.by_pci == 0, "by index");
    cs_nvml_energy_close(&s);
}

static void test_failures(void)
{
    cs_nvml_energy s;
    cs_energy_reading r;

    reset_fake();
    F.init_rc = 9;
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    one_rep(&s);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(!s.ok && isnan(r.joules) && isnan(r.joules_gpu) && isnan(r.joules_kernel) &&
              r.source == NULL,
          "init failure -> NaN");
    CHECK(strcmp(r.note, "nvml: nvmlInit failed: Driver Not Loaded") == 0, "note '%s'", r.note);
    cs_nvml_energy_close(&s);
    CHECK(F.shutdowns == 0, "no shutdown without init");

    reset_fake();
    F.pci_rc = 6;
    cs_nvml_energy_open(&s, &FAKE, "0000:99:00.0", 0);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules) && strcmp(r.note, "nvml: no device with PCI bus id 0000:99:00.0: Not Found") == 0,
          "note '%s'", r.note);
    cs_nvml_energy_close(&s);
    CHECK(F.shutdowns == 1, "shutdown after init");

    reset_fake();
    cs_nvml_energy_open(&s, &FAKE, NULL, 3);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules) && strstr(r.note, "no device 3") != NULL, "note '%s'", r.note);
    cs_nvml_energy_close(&s);

    reset_fake();
    F.unsupported = 1; /* pre-Volta */
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    one_rep(&s);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(!s.ok && isnan(r.joules) &&
              strcmp(r.note, "nvml: nvmlDeviceGetTotalEnergyConsumption: Not Supported") == 0,
          "note '%s'", r.note);
    CHECK(strcmp(s.gpu_name, "NVIDIA H100 80GB HBM3") == 0, "name still known");
    cs_nvml_energy_close(&s);

    reset_fake();
    unsigned long long c[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
    memcpy(F.counter, c, sizeof c);
    F.energy_rc_at_call = 4; /* calls: probe, before H2D, before kernel, before D2H fails */
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    one_rep(&s);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules) && isnan(r.joules_h2d) && isnan(r.joules_kernel) && isnan(r.joules_d2h),
          "a failing read voids the whole repetition");
    CHECK(strcmp(r.note, "nvml: nvmlDeviceGetTotalEnergyConsumption failed before D2H: Driver Not Loaded") == 0,
          "note '%s'", r.note);
    one_rep(&s); /* next repetition reads fine again: counters 6, 7, 8, 10 */
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(NEAR(r.joules, 0.004) && r.source != NULL, "recovered: %.6f '%s'", r.joules, r.note);
    cs_nvml_energy_close(&s);

    reset_fake();
    unsigned long long back[8] = {100, 200, 300, 50, 60};
    memcpy(F.counter, back, sizeof back);
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    one_rep(&s);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules) && strstr(r.note, "went backwards") != NULL, "note '%s'", r.note);
    cs_nvml_energy_close(&s);

    /* a mark missing (never taken) */
    reset_fake();
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    cs_nvml_energy_reset(&s);
    cs_nvml_energy_mark(&s, CS_NVML_BEFORE_H2D);
    cs_nvml_energy_reading(&s, NULL, &r);
    CHECK(isnan(r.joules) && strcmp(r.note, "nvml: no reading before kernel") == 0, "note '%s'", r.note);
    cs_nvml_energy_close(&s);
}

/* Phases shorter than the detected update period: null with the reason, however much
 * the counter happened to move. */
static void test_phase_shorter_than_period(void)
{
    reset_fake();
    unsigned long long c[8] = {0, 1000, 16000, 31000, 31000};
    memcpy(F.counter, c, sizeof c);
    cs_nvml_energy s;
    cs_energy_reading r;
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    s.period_s = 0.1;
    one_rep(&s); /* 1000, 16000, 31000, 31000 */
    const double phase[3] = {0.004, 0.25, 0.004};
    cs_nvml_energy_reading(&s, phase, &r);
    CHECK(isnan(r.joules_h2d) && NEAR(r.joules_kernel, 15.0) && isnan(r.joules_d2h) && isnan(r.joules),
          "only the 250 ms kernel phase is a measurement: %.3f %.3f", r.joules_h2d, r.joules_kernel);
    CHECK(strstr(r.note, "H2D phase (4 ms) shorter than the counter's update period (100 ms)"),
          "reason: '%s'", r.note);
    cs_nvml_energy_close(&s);
}

static void test_update_period(void)
{
    cs_nvml_energy s;
    char note[160];
    const double periods[] = {0.1, 0.02};
    for (int i = 0; i < 2; i++) {
        reset_fake();
        F.period = periods[i];
        F.now = 12.345; /* not aligned to a tick */
        cs_nvml_energy_open(&s, &FAKE, NULL, 0);
        double p = cs_nvml_detect_period(&s, fake_clock, fake_sleep, NULL, 5.0, note, sizeof note);
        CHECK(fabs(p - periods[i]) < 0.001 && fabs(s.period_s - p) < 1e-12,
              "period %.4f detected as %.4f (%s)", periods[i], p, note);
        cs_nvml_energy_close(&s);
    }
    reset_fake();
    F.period = 1e9; /* never ticks */
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    double p = cs_nvml_detect_period(&s, fake_clock, fake_sleep, NULL, 2.0, note, sizeof note);
    CHECK(isnan(p) && isnan(s.period_s) && strstr(note, "changed 0 time(s) in 2 s"), "note '%s'", note);
    cs_nvml_energy_close(&s);
}

static void test_window(void)
{
    cs_nvml_window_plan p;
    cs_nvml_window_result w;
    cs_nvml_window_plan_for(0.1, &p);
    CHECK(NEAR(p.target_s, 1.0) && strcmp(p.basis, "1 s") == 0, "100 ms updates: 1 s window");
    cs_nvml_window_plan_for(0.25, &p);
    CHECK(NEAR(p.target_s, 2.5) && strcmp(p.basis, "10 counter updates") == 0,
          "250 ms updates: 2.5 s window (%s)", p.basis);
    cs_nvml_window_plan_for(NAN, &p);
    CHECK(NEAR(p.target_s, 1.0), "unknown period: 1 s");

    cs_nvml_window_plan_for(0.1, &p);
    cs_nvml_window_result_for(&p, 5000000, 5150000, 1.0, 300, &w);
    CHECK(NEAR(w.joules_per_rep, 0.5) && w.reps == 300 && NEAR(w.window_s, 1.0) && !w.note[0],
          "150 J over 300 reps: %.4f J per rep", w.joules_per_rep);
    cs_nvml_window_result_for(&p, 5000000, 5150000, 0.6, 300, &w);
    CHECK(isnan(w.joules_per_rep) && strstr(w.note, "shorter than the 1 s needed (1 s)"), "'%s'", w.note);
    cs_nvml_window_result_for(&p, 5000000, 5000000, 1.2, 300, &w);
    CHECK(isnan(w.joules_per_rep) && strstr(w.note, "did not advance"), "'%s'", w.note);
    cs_nvml_window_result_for(&p, 5000000, 4000000, 1.2, 300, &w);
    CHECK(isnan(w.joules_per_rep) && strstr(w.note, "backwards"), "'%s'", w.note);
    cs_nvml_window_result_for(&p, 5000000, 5100000, 1.2, 0, &w);
    CHECK(isnan(w.joules_per_rep) && strstr(w.note, "no repetition"), "'%s'", w.note);
}

static void test_gpu_state(void)
{
    cs_nvml_energy s;
    cs_nvml_gpu_state st;
    reset_fake();
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    cs_nvml_gpu_state_read(&s, &st);
    CHECK(NEAR(st.power_limit_w, 700.0) && NEAR(st.sm_mhz, 1980) && NEAR(st.mem_mhz, 2619) &&
              NEAR(st.temp_c, 41),
          "state %.1f W %.0f/%.0f MHz %.0f C", st.power_limit_w, st.sm_mhz, st.mem_mhz, st.temp_c);
    cs_nvml_energy_close(&s);
    reset_fake();
    F.init_rc = 9;
    cs_nvml_energy_open(&s, &FAKE, NULL, 0);
    cs_nvml_gpu_state_read(&s, &st);
    CHECK(isnan(st.power_limit_w) && isnan(st.temp_c), "no NVML: unknown state");
    cs_nvml_energy_close(&s);
}

/* The real loader: on a machine with the driver it opens; without it, a clear note. */
static void test_real_loader(void)
{
    cs_nvml_api api;
    char err[256] = "";
    int rc = cs_nvml_load(&api, err, sizeof err);
    if (rc == 0) {
        CHECK(api.init && api.total_energy && api.lib, "real NVML loaded");
        cs_nvml_unload(&api);
        printf("test_cuda_nvml: libnvidia-ml.so.1 present and loadable\n");
    } else {
        CHECK(strncmp(err, "NVML not available: ", 20) == 0 && strstr(err, "libnvidia-ml.so.1"),
              "err '%s'", err);
        cs_nvml_energy s;
        cs_energy_reading r;
        cs_nvml_energy_open(&s, NULL, NULL, 0);
        cs_nvml_energy_reading(&s, NULL, &r);
        CHECK(!s.ok && isnan(r.joules) && strcmp(r.note, err) == 0, "note '%s'", r.note);
        cs_nvml_energy_close(&s);
        printf("test_cuda_nvml: no libnvidia-ml.so.1 here: %s\n", err);
    }
}

int main(void)
{
    test_split_and_sum();
    test_failures();
    test_phase_shorter_than_period();
    test_update_period();
    test_window();
    test_gpu_state();
    test_real_loader();
    printf("test_cuda_nvml: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
