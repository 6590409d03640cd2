/*
 * aes_cuda_energy.cu - GPU energy of aes-cuda, from NVML's board energy counter
 * (nvml_energy.h), and the GPU's state for provenance.
 *
 * The driver updates the counter periodically (about every 100 ms on an H100), so the
 * energy of one repetition of a few milliseconds cannot be read from it.  Instead:
 *   1. at start, the update period is detected (the counter polled until it changed six
 *      times; the median of the five gaps);
 *   2. after the first repetition, two windows of back-to-back repetitions are run, each
 *      at least max(1 s, 10 updates) long and opened and closed on a counter update: one
 *      of the kernel alone, one of whole repetitions (H2D + kernel + D2H, serial or
 *      overlapped as asked); joules_kernel and joules (= joules_gpu) are the windows'
 *      energy divided by their repetitions, and the record carries both windows' length
 *      and count;
 *   3. serial repetitions also read the counter between their phases: joules_h2d and
 *      joules_d2h come from there when the phase lasted at least one update period and
 *      the counter moved, and are null with the reason otherwise (never 0).
 * The window's repetitions are the timed repetition's work again, untimed; the records'
 * timings are those of the timed repetitions.  The power limit, the SM and memory clocks
 * and the temperature are read at start and after every repetition (the last record's
 * "end" is the end of the point).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "aes_cuda_ctx.h"

/* A note into a buffer of cap bytes: a longer note is cut at cap - 1 bytes, on purpose
 * (the record's note field has a fixed size). */
__attribute__((format(printf, 3, 4))) static void note_printf(char *dst, size_t cap,
                                                               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static double clock_now(void *ctx)
{
    (void)ctx;
    return cs_now();
}

static void sleep_for(void *ctx, double s)
{
    (void)ctx;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void state_unknown(cs_nvml_gpu_state *s)
{
    s->power_limit_w = s->sm_mhz = s->mem_mhz = s->temp_c = NAN;
}

static void window_unknown(cs_nvml_window_result *w, const char *why)
{
    w->joules_per_rep = NAN;
    w->window_s = NAN;
    w->reps = 0;
    snprintf(w->note, sizeof w->note, "%s", why);
}

void cs_cuda_energy_open(cs_run *r, cuda_ctx *c)
{
    state_unknown(&c->at_start);
    state_unknown(&c->at_end);
    cs_nvml_window_plan_for(NAN, &c->plan);
    window_unknown(&c->win_kernel, "no energy window");
    window_unknown(&c->win_total, "no energy window");
    if (strcmp(r->o.energy, "auto") != 0) return;
    char bus[32] = "";
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, c->device) != cudaSuccess) bus[0] = '\0';
    cs_nvml_energy_open(&c->nvml, NULL, bus, (unsigned)c->device);
    c->nvml_on = 1;
    if (c->nvml.driver[0]) snprintf(r->gpu_driver, sizeof r->gpu_driver, "%s", c->nvml.driver);
    cs_nvml_gpu_state_read(&c->nvml, &c->at_start);
    c->at_end = c->at_start;
    if (c->nvml.ok)
        cs_nvml_detect_period(&c->nvml, clock_now, sleep_for, NULL, 3.0, c->period_note,
                              sizeof c->period_note);
    cs_nvml_window_plan_for(c->nvml.period_s, &c->plan);
}

void cs_cuda_nvml_mark(cuda_ctx *c, int which)
{
    if (!c->nvml_on || c->in_window) return;
    const double t0 = cs_now();
    cs_nvml_energy_mark(&c->nvml, which);
    c->nvml_s += cs_now() - t0;
}

/* Spins on the counter until it changes: *mj its new value, *at when it was seen. */
static int wait_tick(cuda_ctx *c, unsigned long long *mj, double *at)
{
    unsigned long long v0 = 0, v = 0;
    if (cs_nvml_read_mj(&c->nvml, &v0) != 0) return -1;
    const double period = isnan(c->nvml.period_s) ? 0.5 : c->nvml.period_s;
    const double t0 = cs_now();
    while (cs_now() - t0 < 3 * period + 1) {
        if (cs_nvml_read_mj(&c->nvml, &v) != 0) return -1;
        if (v != v0) {
            *mj = v;
            *at = cs_now();
            return 0;
        }
        sleep_for(NULL, 0.0002);
    }
    return -1;
}

/* `batch` kernel launches (whole = 0) or whole repetitions (whole = 1), back to back. */
static int run_batch(cs_run *r, cuda_ctx *c, int whole, int batch)
{
    if (!whole) return cs_cuda_kernel_only(r, c, batch);
    for (int i = 0; i < batch; i++) {
        cs_timings t;
        const int status = cs_cuda_run_job(r, c, &t);
        if (status) return status;
    }
    return 0;
}

/* One energy window; see the file comment. */
static void window(cs_run *r, cuda_ctx *c, int whole, cs_nvml_window_result *out)
{
    const double unit = whole ? c->last_total : c->last_compute;
    const int batch = unit > 0 && unit < 0.01 ? (int)fmin(0.01 / unit, 100000) : 1;
    const double give_up = c->plan.target_s + 3 * (isnan(c->nvml.period_s) ? 0.5 : c->nvml.period_s) + 2;
    unsigned long long e0 = 0, ref = 0, v = 0;
    double t0 = 0, now = 0;
    long reps = 0;
    int have_ref = 0;
    c->in_window = 1;
    if (wait_tick(c, &e0, &t0) != 0) {
        window_unknown(out, "nvml: the energy counter did not change before the window");
        c->in_window = 0;
        return;
    }
    for (;;) {
        if (run_batch(r, c, whole, batch) != 0) {
            window_unknown(out, "a repetition in the energy window failed");
            break;
        }
        reps += batch;
        now = cs_now();
        if (now - t0 < c->plan.target_s) continue;
        if (cs_nvml_read_mj(&c->nvml, &v) != 0) {
            window_unknown(out, "nvml: reading the counter at the end of the window failed");
            break;
        }
        if (have_ref && v != ref) {
            cs_nvml_window_result_for(&c->plan, e0, v, now - t0, reps, out);
            break;
        }
        if (!have_ref) ref = v;
        have_ref = 1;
        if (now - t0 > give_up) {
            window_unknown(out, "nvml: the energy counter stopped changing in the window");
            break;
        }
    }
    c->in_window = 0;
}

/* The note of a GPU reading: how it was measured, and what could not be. */
static void gpu_note(const cuda_ctx *c, const cs_energy_reading *phases, char *note, size_t cap)
{
    const cs_nvml_window_result *k = &c->win_kernel, *w = &c->win_total;
    char tot[200], ker[200];
    if (isnan(w->joules_per_rep)) note_printf(tot, sizeof tot, "whole repetition: %s", w->note);
    else note_printf(tot, sizeof tot, "whole repetition %ld reps in %.3g s", w->reps, w->window_s);
    if (isnan(k->joules_per_rep)) note_printf(ker, sizeof ker, "kernel: %s", k->note);
    else note_printf(ker, sizeof ker, "kernel %ld reps in %.3g s", k->reps, k->window_s);
    note_printf(note, cap, "nvml windows >= %.3g s (%s; update every %.3g ms): %s; %s; H2D/D2H: %s",
                c->plan.target_s, c->plan.basis, c->nvml.period_s * 1e3, tot, ker,
                isnan(phases->joules_h2d) && isnan(phases->joules_d2h) ? phases->note : "per repetition");
}

void cs_cuda_after_rep(cs_run *r, cs_energy_reading *e, double *cpu_user, double *cpu_sys)
{
    (void)cpu_user;
    (void)cpu_sys;
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    if (!c->nvml_on) return; /* --energy rapl|none: the runner's reading stands */
    cs_nvml_gpu_state_read(&c->nvml, &c->at_end);
    cs_energy_reading g;
    if (c->overlapped)
        cs_energy_reading_none(&g, "phases overlap on several streams: not separable");
    else
        cs_nvml_energy_reading(&c->nvml, c->phase_s, &g);
    if (c->nvml.ok && !c->windows_done) {
        window(r, c, 0, &c->win_kernel);
        window(r, c, 1, &c->win_total);
        c->windows_done = 1;
    }
    char host[200] = "", gpu[400];
    if (e->source && !isnan(e->joules))
        note_printf(host, sizeof host, "host %s energy (%s) in joules_pkg/core/dram", e->scope, e->source);
    else if (e->note[0])
        note_printf(host, sizeof host, "host energy: %s", e->note);
    if (c->nvml.ok) gpu_note(c, &g, gpu, sizeof gpu);
    else note_printf(gpu, sizeof gpu, "%s", c->nvml.note[0] ? c->nvml.note : g.note);
    e->joules_h2d = g.joules_h2d;
    e->joules_d2h = g.joules_d2h;
    e->joules_kernel = c->nvml.ok ? c->win_kernel.joules_per_rep : NAN;
    e->joules_gpu = e->joules = c->nvml.ok ? c->win_total.joules_per_rep : NAN;
    const int any = !isnan(e->joules) || !isnan(e->joules_kernel) || !isnan(e->joules_h2d) ||
                    !isnan(e->joules_d2h);
    e->source = any ? "nvml" : NULL;
    e->nodes = any ? 1 : 0;
    note_printf(e->scope, sizeof e->scope, "%s", any ? "gpu" : "");
    char note[sizeof e->note];
    note_printf(note, sizeof note, "%s%s%s", gpu, host[0] ? "; " : "", host);
    memcpy(e->note, note, sizeof note);
}

static void json_state(cs_buf *b, const cs_nvml_gpu_state *s, const char *when)
{
    char key[48];
    snprintf(key, sizeof key, "gpu_sm_clock_mhz_%s", when);
    cs_json_num(b, key, s->sm_mhz);
    snprintf(key, sizeof key, "gpu_mem_clock_mhz_%s", when);
    cs_json_num(b, key, s->mem_mhz);
    snprintf(key, sizeof key, "gpu_temp_c_%s", when);
    cs_json_num(b, key, s->temp_c);
}

void cs_cuda_record_fields(const cs_run *r, cs_buf *b)
{
    const cuda_ctx *c = (const cuda_ctx *)r->ctx;
    const int windows = c->nvml_on && c->windows_done;
    cs_json_int(b, "streams", c->overlapped ? c->streams : 1);
    cs_json_int(b, "streams_used", c->streams_used);
    if (c->overlapped) cs_json_int(b, "chunk_bytes", (long long)c->chunk);
    else cs_json_null(b, "chunk_bytes");
    cs_json_num(b, "nvml_update_s", c->nvml_on ? c->nvml.period_s : NAN);
    cs_json_str(b, "energy_window_basis", windows ? c->plan.basis : NULL);
    cs_json_num(b, "energy_window_s", windows ? c->win_total.window_s : NAN);
    if (windows && c->win_total.reps) cs_json_int(b, "energy_window_reps", c->win_total.reps);
    else cs_json_null(b, "energy_window_reps");
    cs_json_num(b, "energy_window_kernel_s", windows ? c->win_kernel.window_s : NAN);
    if (windows && c->win_kernel.reps) cs_json_int(b, "energy_window_kernel_reps", c->win_kernel.reps);
    else cs_json_null(b, "energy_window_kernel_reps");
    cs_json_num(b, "gpu_power_limit_w", c->at_start.power_limit_w);
    json_state(b, &c->at_start, "start");
    json_state(b, &c->at_end, "end");
}
