/*
 * aes_cuda.cu - aes-cuda: AES (ECB/CTR, encrypt/decrypt, 128/192/256-bit keys) on one
 * NVIDIA GPU, behind the same command line and JSON records as every other kernel
 * (runner.h does the CLI, input, OpenSSL reference, verification and records).
 *
 * Block implementations (--impl, aes_cuda_impl.h): gpu-lanes (default; bank-conflict-
 * free T-table), gpu-ttable (four T-tables in shared memory), gpu-ref (the reference
 * study's byte-oriented design).  The round keys are expanded on the host by the shared
 * AES core and copied to __constant__ memory.
 *
 * One repetition (the timed region), serial (--streams 1, the default; the study's):
 *   key schedule -> __constant__            t_keyexp (host clock)
 *   H2D copy of the input (pinned memory)   t_h2d     (cudaEvent)
 *   kernel                                  t_compute (cudaEvent)
 *   D2H copy of the result                  t_d2h     (cudaEvent)
 *   [ECB decrypt: PKCS#7 check on the host]
 * separated by stream synchronisations so that each phase's energy can be read on its
 * own; t_total is host wall time (CLOCK_MONOTONIC) over all of it, less the time spent
 * reading the NVML counter between the phases.
 *
 * Overlapped (--streams N > 1, or --chunk SIZE): the data is split into chunks
 * (cuda_chunks.h) queued round-robin on N streams, each chunk's copy in, kernel and copy
 * out in order on its stream, so the copies of one chunk overlap the kernel of another;
 * t_h2d, t_compute and t_d2h are the sums over the chunks of each phase (per-chunk
 * events), t_total the wall time of the whole repetition.
 *
 * Energy: aes_cuda_energy.cu.  Exit status 3: the required hardware is absent (no CUDA
 * device, or --device N beyond the devices present): "aes-cuda: no CUDA device: <reason>".
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "aes_cuda_ctx.h"

#define CS_EXIT_NO_HARDWARE 3

static const cs_cuda_impl *const impls[] = {&cs_cuda_impl_lanes, &cs_cuda_impl_ttable,
                                            &cs_cuda_impl_ref};

int cs_cuda_fail(cs_run *r, const char *what, cudaError_t e)
{
    cs_error(r, "%s: %s", what, cudaGetErrorString(e));
    return CS_EXIT_FAIL;
}

#define CK(call)                                                    \
    do {                                                            \
        cudaError_t e_ = (call);                                    \
        if (e_ != cudaSuccess) return cs_cuda_fail(r, #call, e_);   \
    } while (0)

static size_t round16(size_t n) { return (n + 15) / 16 * 16; }

/* "gpu-lanes|gpu-ttable|gpu-ref|auto" for --help. */
static void impl_choices(char *buf, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < sizeof impls / sizeof impls[0] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s|", impls[i]->name);
    if (len < n) snprintf(buf + len, n - len, "auto");
}

/* --impl: auto = gpu-lanes. */
static int choose_impl(cs_run *r, cuda_ctx *c)
{
    c->impl = NULL;
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        if (strcmp(r->o.impl, impls[i]->name) == 0 || (!c->impl && strcmp(r->o.impl, "auto") == 0))
            c->impl = impls[i];
    if (!c->impl) {
        cs_error(r, "--impl: '%s' is not a GPU impl (allowed: gpu-lanes, gpu-ttable, gpu-ref, auto)",
                 r->o.impl);
        return CS_EXIT_USAGE;
    }
    r->impl_name = c->impl->name;
    return 0;
}

/* Why no device can be used: without the NVIDIA kernel driver the CUDA runtime only
 * says "driver version is insufficient", which reads like an update would help. */
static const char *no_device_reason(cudaError_t e)
{
    if (e == cudaErrorInsufficientDriver && access("/proc/driver/nvidia/version", F_OK) != 0)
        return "no NVIDIA driver / no CUDA device (the NVIDIA kernel driver is not loaded)";
    if (e == cudaSuccess || e == cudaErrorNoDevice)
        return "no NVIDIA driver / no CUDA device (the driver sees no GPU)";
    return cudaGetErrorString(e);
}

static int open_device(cs_run *r, cuda_ctx *c, cudaDeviceProp *prop)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        cs_error(r, "no CUDA device: %s", no_device_reason(e));
        return CS_EXIT_NO_HARDWARE;
    }
    if (r->o.device >= n) {
        cs_error(r, "no CUDA device: --device %d, but %d device(s) present", r->o.device, n);
        return CS_EXIT_NO_HARDWARE;
    }
    c->device = r->o.device;
    CK(cudaSetDevice(c->device));
    CK(cudaGetDeviceProperties(prop, c->device));
    /* the name cut so that " (sm_XY)" always fits the record's 128 bytes */
    snprintf(r->gpu_model, sizeof r->gpu_model, "%.100s (sm_%d%d)", prop->name, prop->major,
             prop->minor);
    return 0;
}

/* Streams, the per-kernel grid caps (resident blocks on the whole GPU). */
static int open_streams_and_grids(cs_run *r, cuda_ctx *c, const cudaDeviceProp *prop)
{
    c->nst = c->overlapped ? c->streams : 1;
    for (int i = 0; i < c->nst; i++)
        CK(cudaStreamCreateWithFlags(&c->st[i], cudaStreamNonBlocking));
    const int bt = r->o.block_threads;
    for (int k = 0; k < CS_K_KINDS; k++) {
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)c->impl->kernels[k], bt,
                                                         c->impl->shared_bytes(k, bt)));
        if (per_sm < 1) {
            cs_error(r, "--block-threads %d: the %s kernel cannot run with that many threads", bt,
                     c->impl->name);
            return CS_EXIT_USAGE;
        }
        c->grid_cap[k] = per_sm * prop->multiProcessorCount;
    }
    return 0;
}

static int cuda_setup(cs_run *r)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    int status = choose_impl(r, c);
    if (status) return status;
    r->gpus = 1;
    r->threads = 1;
    r->cores_used = 1;
    r->block_threads = r->o.block_threads;
    r->clock = "cudaEvent";
    c->streams = r->o.streams;
    c->chunk = (size_t)r->o.chunk; /* 0: by the message's size (run_overlapped) */
    c->overlapped = r->o.streams > 1 || r->o.chunk;

    cudaDeviceProp prop;
    if ((status = open_device(r, c, &prop)) != 0) return status;
    CK(c->impl->init());
    if ((status = open_streams_and_grids(r, c, &prop)) != 0) return status;
    cs_cuda_energy_open(r, c);
    if (!r->gpu_driver[0]) {
        int v = 0;
        if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
            snprintf(r->gpu_driver, sizeof r->gpu_driver, "CUDA driver API %d.%d", v / 1000,
                     (v % 1000) / 10);
    }
    return 0;
}

static void *cuda_alloc(cs_run *r, size_t n)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    void *p = NULL;
    if (cudaMallocHost(&p, n ? n : 1) != cudaSuccess) return NULL;
    /* The device buffer holds the largest host buffer, rounded up to whole blocks. */
    size_t need = round16(n) + 16;
    if (need > c->d_cap) {
        if (c->d_buf) cudaFree(c->d_buf);
        c->d_buf = NULL;
        c->d_cap = 0;
        if (cudaMalloc((void **)&c->d_buf, need) != cudaSuccess) {
            cudaFreeHost(p);
            return NULL;
        }
        c->d_cap = need;
    }
    return p;
}

static void cuda_dealloc(cs_run *r, void *p)
{
    (void)r;
    if (p) cudaFreeHost(p);
}

static double elapsed_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = NAN;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return NAN;
    return ms * 1e-3;
}

/* At least `need` events in the pool. */
static int ensure_events(cs_run *r, cuda_ctx *c, int need)
{
    if (need <= c->nev) return 0;
    cudaEvent_t *ev = (cudaEvent_t *)realloc(c->ev, sizeof *ev * (size_t)need);
    if (!ev) {
        cs_error(r, "out of memory for %d CUDA events", need);
        return CS_EXIT_FAIL;
    }
    c->ev = ev;
    for (; c->nev < need; c->nev++) CK(cudaEventCreate(&c->ev[c->nev]));
    return 0;
}

/* The job of this repetition, or CS_EXIT_FAIL for ECB without padding on a partial block. */
static int make_job(cs_run *r, cuda_job *j, int nr)
{
    const int decrypt = r->o.op == CS_DECRYPT, ecb = r->o.mode == CS_ECB;
    j->kind = ecb ? (decrypt ? CS_K_ECB_DEC : CS_K_ECB_ENC) : CS_K_CTR;
    j->n = r->in_len;
    j->nr = nr;
    if (ecb && !decrypt && r->pad) {
        j->dev_out = cs_pkcs7_padded_len(j->n);
    } else if (ecb && j->n % 16) {
        cs_error(r, "ECB %s without padding needs a multiple of 16 bytes (got %zu)",
                 decrypt ? "decryption" : "encryption", j->n);
        return CS_EXIT_FAIL;
    } else {
        j->dev_out = j->n;
    }
    j->nblocks = (j->dev_out + 15) / 16;
    j->padv = (ecb && !decrypt && r->pad) ? (unsigned)(j->dev_out - j->n) : 0u;
    return 0;
}

/* The grid: sized to the data (grid_to_data: one thread per block, at most 2^31 - 1
 * thread blocks), else capped at the blocks resident on the whole GPU (grid-stride). */
static int grid_for(const cuda_ctx *c, int kind, unsigned long long nblocks, int bt)
{
    const unsigned long long per = (unsigned long long)bt * (unsigned long long)c->impl->blocks_per_thread;
    const unsigned long long want = (nblocks + per - 1) / per;
    const unsigned long long cap = c->impl->grid_to_data ? 2147483647ull : (unsigned long long)c->grid_cap[kind];
    const int g = (int)(want < cap ? want : cap);
    return g < 1 ? 1 : g;
}

static void launch(const cuda_ctx *c, const cs_run *r, cudaStream_t st, unsigned long long first,
                   unsigned long long nblocks)
{
    const cuda_job *j = &c->job;
    const cs_cuda_work w = {first, nblocks, (unsigned long long)j->n, j->nr, j->padv};
    const int bt = r->o.block_threads;
    const cs_cuda_kernel_fn kernel = c->impl->kernels[j->kind];
    kernel<<<grid_for(c, j->kind, nblocks, bt), bt, c->impl->shared_bytes(j->kind, bt), st>>>(
        (uint4 *)(c->d_buf + 16 * first), w);
}

/* Serial: copy in, kernel, copy out, each followed by a synchronisation (and, outside
 * energy windows, an NVML mark). */
static int run_serial(cs_run *r, cuda_ctx *c, cs_timings *t)
{
    const cuda_job *j = &c->job;
    cudaStream_t st = c->st[0];
    cudaEvent_t *ev = c->ev;
    cs_cuda_nvml_mark(c, CS_NVML_BEFORE_H2D);
    CK(cudaEventRecord(ev[0], st));
    if (j->n) CK(cudaMemcpyAsync(c->d_buf, r->in, j->n, cudaMemcpyHostToDevice, st));
    CK(cudaEventRecord(ev[1], st));
    CK(cudaEventSynchronize(ev[1]));
    cs_cuda_nvml_mark(c, CS_NVML_BEFORE_KERNEL);
    CK(cudaEventRecord(ev[2], st));
    if (j->nblocks) {
        launch(c, r, st, 0, j->nblocks);
        CK(cudaGetLastError());
    }
    CK(cudaEventRecord(ev[3], st));
    CK(cudaEventSynchronize(ev[3]));
    cs_cuda_nvml_mark(c, CS_NVML_BEFORE_D2H);
    CK(cudaEventRecord(ev[4], st));
    if (j->dev_out) CK(cudaMemcpyAsync(r->out, c->d_buf, j->dev_out, cudaMemcpyDeviceToHost, st));
    CK(cudaEventRecord(ev[5], st));
    CK(cudaEventSynchronize(ev[5]));
    cs_cuda_nvml_mark(c, CS_NVML_AFTER_D2H);
    t->t_h2d = elapsed_s(ev[0], ev[1]);
    t->t_compute = elapsed_s(ev[2], ev[3]);
    t->t_d2h = elapsed_s(ev[4], ev[5]);
    c->streams_used = 1;
    return 0;
}

/* Overlapped: every chunk's copy in, kernel and copy out queued on its stream. */
static int run_overlapped(cs_run *r, cuda_ctx *c, cs_timings *t)
{
    const cuda_job *j = &c->job;
    if (!r->o.chunk) c->chunk = cs_chunk_default(j->dev_out);
    const size_t count = cs_chunk_count(j->dev_out, c->chunk);
    if (count > c->chunk_cap) {
        cs_chunk *p = (cs_chunk *)realloc(c->chunks, sizeof *p * count);
        if (!p) return cs_cuda_fail(r, "chunk plan", cudaErrorMemoryAllocation);
        c->chunks = p;
        c->chunk_cap = count;
    }
    int status = ensure_events(r, c, (int)(4 * count));
    if (status) return status;
    cs_chunk_plan(j->n, j->dev_out, c->chunk, c->nst, c->chunks, c->chunk_cap);
    for (size_t i = 0; i < count; i++) {
        const cs_chunk *k = &c->chunks[i];
        cudaStream_t st = c->st[k->stream];
        cudaEvent_t *ev = c->ev + 4 * i;
        CK(cudaEventRecord(ev[0], st));
        if (k->in_len)
            CK(cudaMemcpyAsync(c->d_buf + k->in_off, r->in + k->in_off, k->in_len,
                               cudaMemcpyHostToDevice, st));
        CK(cudaEventRecord(ev[1], st));
        launch(c, r, st, k->first_block, k->nblocks);
        CK(cudaGetLastError());
        CK(cudaEventRecord(ev[2], st));
        CK(cudaMemcpyAsync(r->out + k->out_off, c->d_buf + k->out_off, k->out_len,
                           cudaMemcpyDeviceToHost, st));
        CK(cudaEventRecord(ev[3], st));
    }
    for (int s = 0; s < c->nst; s++) CK(cudaStreamSynchronize(c->st[s]));
    double h2d = 0, kern = 0, d2h = 0;
    for (size_t i = 0; i < count; i++) {
        cudaEvent_t *ev = c->ev + 4 * i;
        h2d += elapsed_s(ev[0], ev[1]);
        kern += elapsed_s(ev[1], ev[2]);
        d2h += elapsed_s(ev[2], ev[3]);
    }
    t->t_h2d = h2d;
    t->t_compute = kern;
    t->t_d2h = d2h;
    c->streams_used = cs_chunk_streams_used(count, c->nst);
    return 0;
}

/* The copies and the kernel of one repetition (the key is in constant memory). */
int cs_cuda_run_job(cs_run *r, cuda_ctx *c, cs_timings *t)
{
    int status = ensure_events(r, c, 6);
    if (status) return status;
    if (c->overlapped && c->job.dev_out) return run_overlapped(r, c, t);
    return run_serial(r, c, t);
}

/* The kernel alone, `times` times back to back over the whole device buffer. */
int cs_cuda_kernel_only(cs_run *r, cuda_ctx *c, int times)
{
    for (int i = 0; i < times && c->job.nblocks; i++) launch(c, r, c->st[0], 0, c->job.nblocks);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(c->st[0]));
    return 0;
}

static int cuda_rep(cs_run *r, cs_timings *t)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    cs_aes_key k;
    if (cs_aes_expand_key(&k, r->key, r->key_bytes) != 0) {
        cs_error(r, "unsupported key length %d", r->key_bytes);
        return CS_EXIT_FAIL;
    }
    int status = make_job(r, &c->job, k.nr);
    if (status) return status;
    if (c->job.dev_out > r->out_cap || round16(c->job.dev_out) > c->d_cap) {
        cs_error(r, "internal: buffers too small (%zu > %zu)", c->job.dev_out, r->out_cap);
        return CS_EXIT_FAIL;
    }
    c->nvml_s = 0;
    if (c->nvml_on) cs_nvml_energy_reset(&c->nvml);
    const double t0 = cs_now();
    /* key schedule -> __constant__ (the key expansion is part of the timed work) */
    CK(c->impl->set_key(&k, c->job.kind, r->iv, c->st[0]));
    CK(cudaStreamSynchronize(c->st[0]));
    t->t_keyexp = cs_now() - t0;
    if ((status = cs_cuda_run_job(r, c, t)) != 0) return status;
    r->out_len = c->job.dev_out;
    if (c->job.kind == CS_K_ECB_DEC && r->pad) {
        size_t un = 0;
        if (c->job.dev_out == 0 || cs_pkcs7_check(r->out, c->job.dev_out, &un) != 0) {
            cs_error(r, "decryption: bad PKCS#7 padding");
            return CS_EXIT_FAIL;
        }
        r->out_len = un;
    }
    t->t_total = (cs_now() - t0) - c->nvml_s;
    c->phase_s[0] = t->t_h2d;
    c->phase_s[1] = t->t_compute;
    c->phase_s[2] = t->t_d2h;
    c->last_total = t->t_total;
    c->last_compute = t->t_compute;
    return 0;
}

static void cuda_finish(cs_run *r)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    if (c->d_buf) cudaFree(c->d_buf);
    c->d_buf = NULL;
    for (int i = 0; i < c->nev; i++) cudaEventDestroy(c->ev[i]);
    free(c->ev);
    c->ev = NULL;
    c->nev = 0;
    free(c->chunks);
    c->chunks = NULL;
    for (int i = 0; i < c->nst; i++) cudaStreamDestroy(c->st[i]);
    c->nst = 0;
    if (c->nvml_on) cs_nvml_energy_close(&c->nvml);
    c->nvml_on = 0;
}

int main(int argc, char **argv)
{
    static cuda_ctx ctx;
    static char version[96];
    snprintf(version, sizeof version, "CUDA runtime built against %d.%d, device code for %s",
             CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, CS_CUDA_ARCHS);
    cs_backend be;
    memset(&be, 0, sizeof be);
    be.name = "cuda";
    be.prog = "aes-cuda";
    be.version = version;
    be.flags = CS_BE_GPU;
    static char choices[96];
    impl_choices(choices, sizeof choices);
    be.impls = choices;
    be.impls_auto = impls[0]->name;
    be.setup = cuda_setup;
    be.alloc = cuda_alloc;
    be.dealloc = cuda_dealloc;
    be.rep = cuda_rep;
    be.after_rep = cs_cuda_after_rep;
    be.record_fields = cs_cuda_record_fields;
    be.finish = cuda_finish;
    return cs_runner_main(argc, argv, &be, &ctx);
}
