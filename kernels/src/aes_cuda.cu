/*
 * aes_cuda.cu - aes-cuda: AES (ECB/CTR, encrypt/decrypt, 128/192/256-bit keys) on one
 * NVIDIA GPU, behind the same command line and JSON records as every other kernel
 * (runner.h does the CLI, input, OpenSSL reference, verification and records).
 *
 * Design (the reference study's): round keys are expanded on the host by the shared
 * AES core and copied to __constant__ memory; the T-tables (and, for decryption, the
 * inverse S-box) are copied into shared memory by every thread block; each thread
 * handles one 16-byte block at a time (grid-stride: a capped grid, so each thread takes
 * several blocks of a large message and the table load is amortised), staging its block
 * through shared memory with 16-byte (uint4) loads and stores, which are coalesced
 * across a warp. The block function itself is aes_block_gpu.h, the same source the CPU
 * test runs.
 *
 * One repetition (the timed region):
 *   key schedule -> __constant__            t_keyexp (host clock)
 *   H2D copy of the input (pinned memory)   t_h2d     (cudaEvent)
 *   kernel                                  t_compute (cudaEvent)
 *   D2H copy of the result                  t_d2h     (cudaEvent)
 *   [ECB decrypt: PKCS#7 check on the host]
 * t_total is host wall time (CLOCK_MONOTONIC) over all of it, less the time spent reading
 * the NVML energy counter between the phases. The phases are separated by a stream
 * synchronisation so that each one's energy can be read on its own.
 *
 * Energy (--energy auto): NVML's board energy counter read before the H2D copy, before
 * the kernel, before the D2H copy and after it: joules_h2d, joules_kernel, joules_d2h and
 * joules = joules_gpu = their sum, energy_source "nvml", scope "gpu". The runner's RAPL
 * reading of the host (when it has one) stays in joules_pkg/joules_core/joules_dram.
 * Without NVML: joules null, the note says why. --energy rapl: the host RAPL reading only.
 *
 * Exit status 3: the required hardware is absent (no CUDA device, or --device N beyond
 * the devices present): "aes-cuda: no CUDA device: <reason>".
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "aes.h"
#include "aes_tables.h"
#include "energy.h"
#include "runner.h"
}
#include "aes_block_gpu.h"
#include "nvml_energy.h"

#define CS_EXIT_NO_HARDWARE 3
#define GPU_IMPL "gpu-ttable"

enum { K_ECB_ENC = 0, K_ECB_DEC = 1, K_CTR = 2 };

__constant__ uint32_t c_rk[4 * (CS_AES_MAX_ROUNDS + 1)];
__constant__ uint32_t c_iv[4];
__device__ uint32_t g_te[4 * 256];
__device__ uint32_t g_td[4 * 256];
__device__ uint8_t g_isbox[256];

/* buf: nblocks 16-byte blocks, processed in place. ECB encryption with padding: bytes
 * at offsets >= msg_len of the last block are set to padv (PKCS#7) before encryption. */
template <int MODE>
__global__ void aes_kernel(uint4 *buf, unsigned long long nblocks, int nr,
                           unsigned long long msg_len, unsigned padv)
{
    __shared__ uint32_t sT[4 * 256];
    __shared__ uint8_t sIS[256];
    extern __shared__ uint4 tile[];

    const uint32_t *gT = MODE == K_ECB_DEC ? g_td : g_te;
    for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) sT[i] = gT[i];
    if (MODE == K_ECB_DEC)
        for (int i = threadIdx.x; i < 256; i += blockDim.x) sIS[i] = g_isbox[i];
    __syncthreads();
    const cs_gpu_tables T = {sT, sT + 256, sT + 512, sT + 768, sIS};

    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < nblocks; i += stride) {
        /* Each thread owns tile[threadIdx.x]: no barrier is needed around it. */
        tile[threadIdx.x] = buf[i];
        uint4 v = tile[threadIdx.x];
        uint32_t w[4] = {v.x, v.y, v.z, v.w};
        if (MODE == K_ECB_ENC && padv) cs_gpu_pad_le_words(i, msg_len, padv, w);
        cs_gpu_process_le_words(&T, c_rk, nr, MODE, c_iv, i, w);
        tile[threadIdx.x] = make_uint4(w[0], w[1], w[2], w[3]);
        buf[i] = tile[threadIdx.x];
    }
}

typedef struct {
    int device;
    int ready;
    cudaStream_t stream;
    cudaEvent_t ev[6];
    int nev;
    uint8_t *d_buf;
    size_t d_cap;
    int grid_cap[3];          /* per kernel: resident blocks on the whole GPU */
    int nvml_on;
    cs_nvml_energy nvml;
    double nvml_s;            /* time spent reading NVML in this repetition */
} cuda_ctx;

static int cuda_fail(cs_run *r, const char *what, cudaError_t e)
{
    cs_error(r, "%s: %s", what, cudaGetErrorString(e));
    return CS_EXIT_FAIL;
}

#define CK(call)                                                    \
    do {                                                            \
        cudaError_t e_ = (call);                                    \
        if (e_ != cudaSuccess) return cuda_fail(r, #call, e_);      \
    } while (0)

static size_t round16(size_t n) { return (n + 15) / 16 * 16; }

static void nvml_mark(cuda_ctx *c, int which)
{
    if (!c->nvml_on) return;
    double t0 = cs_now();
    cs_nvml_energy_mark(&c->nvml, which);
    c->nvml_s += cs_now() - t0;
}

static int cuda_setup(cs_run *r)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    if (strcmp(r->o.impl, "auto") != 0 && strcmp(r->o.impl, GPU_IMPL) != 0) {
        cs_error(r, "--impl: '%s' is not a GPU impl (allowed: " GPU_IMPL ", auto)", r->o.impl);
        return CS_EXIT_USAGE;
    }
    r->impl_name = GPU_IMPL;
    r->gpus = 1;
    r->threads = 1;
    r->cores_used = 1;
    r->block_threads = r->o.block_threads;
    r->clock = "cudaEvent";

    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cs_error(r, "no CUDA device: %s", cudaGetErrorString(e));
        return CS_EXIT_NO_HARDWARE;
    }
    if (n < 1) {
        cs_error(r, "no CUDA device: %s", cudaGetErrorString(cudaErrorNoDevice));
        return CS_EXIT_NO_HARDWARE;
    }
    if (r->o.device >= n) {
        cs_error(r, "no CUDA device: --device %d, but %d device(s) present", r->o.device, n);
        return CS_EXIT_NO_HARDWARE;
    }
    c->device = r->o.device;
    CK(cudaSetDevice(c->device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, c->device));
    snprintf(r->gpu_model, sizeof r->gpu_model, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);

    CK(cudaMemcpyToSymbol(g_te, cs_te0, sizeof cs_te0, 0));
    CK(cudaMemcpyToSymbol(g_te, cs_te1, sizeof cs_te1, 1 * sizeof cs_te0));
    CK(cudaMemcpyToSymbol(g_te, cs_te2, sizeof cs_te2, 2 * sizeof cs_te0));
    CK(cudaMemcpyToSymbol(g_te, cs_te3, sizeof cs_te3, 3 * sizeof cs_te0));
    CK(cudaMemcpyToSymbol(g_td, cs_td0, sizeof cs_td0, 0));
    CK(cudaMemcpyToSymbol(g_td, cs_td1, sizeof cs_td1, 1 * sizeof cs_td0));
    CK(cudaMemcpyToSymbol(g_td, cs_td2, sizeof cs_td2, 2 * sizeof cs_td0));
    CK(cudaMemcpyToSymbol(g_td, cs_td3, sizeof cs_td3, 3 * sizeof cs_td0));
    CK(cudaMemcpyToSymbol(g_isbox, cs_inv_sbox, sizeof cs_inv_sbox, 0));
    CK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    for (c->nev = 0; c->nev < 6; c->nev++) CK(cudaEventCreate(&c->ev[c->nev]));

    const int bt = r->o.block_threads;
    const size_t shm = (size_t)bt * sizeof(uint4);
    const void *kernels[3] = {(const void *)aes_kernel<K_ECB_ENC>,
                              (const void *)aes_kernel<K_ECB_DEC>,
                              (const void *)aes_kernel<K_CTR>};
    for (int k = 0; k < 3; k++) {
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[k], bt, shm));
        if (per_sm < 1) {
            cs_error(r, "--block-threads %d: the kernel cannot run with that many threads", bt);
            return CS_EXIT_USAGE;
        }
        c->grid_cap[k] = per_sm * prop.multiProcessorCount;
    }

    /* GPU energy and the driver version. */
    if (strcmp(r->o.energy, "auto") == 0) {
        char bus[32] = "";
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, c->device) != cudaSuccess) bus[0] = '\0';
        cs_nvml_energy_open(&c->nvml, NULL, bus, (unsigned)c->device);
        c->nvml_on = 1;
        if (c->nvml.driver[0]) snprintf(r->gpu_driver, sizeof r->gpu_driver, "%s", c->nvml.driver);
    }
    if (!r->gpu_driver[0]) {
        int v = 0;
        if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
            snprintf(r->gpu_driver, sizeof r->gpu_driver, "CUDA driver API %d.%d", v / 1000,
                     (v % 1000) / 10);
    }
    c->ready = 1;
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

static float elapsed_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = NAN;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return NAN;
    return ms * 1e-3f;
}

static int cuda_rep(cs_run *r, cs_timings *t)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    const int decrypt = r->o.op == CS_DECRYPT;
    const int ecb = r->o.mode == CS_ECB;
    const int kind = ecb ? (decrypt ? K_ECB_DEC : K_ECB_ENC) : K_CTR;
    const size_t n = r->in_len;
    size_t nblocks, dev_out;

    if (ecb && !decrypt && r->pad) {
        dev_out = cs_pkcs7_padded_len(n);
        nblocks = dev_out / 16;
    } else if (ecb) {
        if (n % 16) {
            cs_error(r, "ECB %s without padding needs a multiple of 16 bytes (got %zu)",
                     decrypt ? "decryption" : "encryption", n);
            return CS_EXIT_FAIL;
        }
        dev_out = n;
        nblocks = n / 16;
    } else {
        dev_out = n;
        nblocks = (n + 15) / 16;
    }
    if (dev_out > r->out_cap || round16(dev_out) > c->d_cap) {
        cs_error(r, "internal: buffers too small (%zu > %zu)", dev_out, r->out_cap);
        return CS_EXIT_FAIL;
    }
    const unsigned padv = (ecb && !decrypt && r->pad) ? (unsigned)(dev_out - n) : 0u;

    c->nvml_s = 0;
    if (c->nvml_on) cs_nvml_energy_reset(&c->nvml);
    const double t0 = cs_now();

    /* key schedule -> __constant__ */
    cs_aes_key k;
    if (cs_aes_expand_key(&k, r->key, r->key_bytes) != 0) {
        cs_error(r, "unsupported key length %d", r->key_bytes);
        return CS_EXIT_FAIL;
    }
    uint32_t w[4 * (CS_AES_MAX_ROUNDS + 1)], ivw[4] = {0, 0, 0, 0};
    cs_gpu_round_key_words(decrypt && ecb ? k.drk : k.rk, k.nr, w);
    for (int i = 0; i < 4; i++) ivw[i] = cs_gpu_load_be32(r->iv + 4 * i);
    CK(cudaMemcpyToSymbolAsync(c_rk, w, sizeof(uint32_t) * 4 * (k.nr + 1), 0,
                               cudaMemcpyHostToDevice, c->stream));
    CK(cudaMemcpyToSymbolAsync(c_iv, ivw, sizeof ivw, 0, cudaMemcpyHostToDevice, c->stream));
    CK(cudaStreamSynchronize(c->stream));
    t->t_keyexp = cs_now() - t0;

    nvml_mark(c, CS_NVML_BEFORE_H2D);
    CK(cudaEventRecord(c->ev[0], c->stream));
    if (n) CK(cudaMemcpyAsync(c->d_buf, r->in, n, cudaMemcpyHostToDevice, c->stream));
    CK(cudaEventRecord(c->ev[1], c->stream));
    CK(cudaEventSynchronize(c->ev[1]));

    nvml_mark(c, CS_NVML_BEFORE_KERNEL);
    const int bt = r->o.block_threads;
    unsigned long long want = (nblocks + (size_t)bt - 1) / (size_t)bt;
    int grid = (int)(want < (unsigned long long)c->grid_cap[kind] ? want : c->grid_cap[kind]);
    if (grid < 1) grid = 1;
    const size_t shm = (size_t)bt * sizeof(uint4);
    CK(cudaEventRecord(c->ev[2], c->stream));
    if (nblocks) {
        uint4 *b = (uint4 *)c->d_buf;
        if (kind == K_ECB_ENC)
            aes_kernel<K_ECB_ENC><<<grid, bt, shm, c->stream>>>(b, nblocks, k.nr, n, padv);
        else if (kind == K_ECB_DEC)
            aes_kernel<K_ECB_DEC><<<grid, bt, shm, c->stream>>>(b, nblocks, k.nr, n, 0);
        else
            aes_kernel<K_CTR><<<grid, bt, shm, c->stream>>>(b, nblocks, k.nr, n, 0);
        CK(cudaGetLastError());
    }
    CK(cudaEventRecord(c->ev[3], c->stream));
    CK(cudaEventSynchronize(c->ev[3]));

    nvml_mark(c, CS_NVML_BEFORE_D2H);
    CK(cudaEventRecord(c->ev[4], c->stream));
    if (dev_out) CK(cudaMemcpyAsync(r->out, c->d_buf, dev_out, cudaMemcpyDeviceToHost, c->stream));
    CK(cudaEventRecord(c->ev[5], c->stream));
    CK(cudaEventSynchronize(c->ev[5]));
    nvml_mark(c, CS_NVML_AFTER_D2H);

    r->out_len = dev_out;
    if (ecb && decrypt && r->pad) {
        size_t un = 0;
        if (dev_out == 0 || cs_pkcs7_check(r->out, dev_out, &un) != 0) {
            cs_error(r, "decryption: bad PKCS#7 padding");
            return CS_EXIT_FAIL;
        }
        r->out_len = un;
    }
    const double t1 = cs_now();
    t->t_total = (t1 - t0) - c->nvml_s;
    t->t_h2d = elapsed_s(c->ev[0], c->ev[1]);
    t->t_compute = elapsed_s(c->ev[2], c->ev[3]);
    t->t_d2h = elapsed_s(c->ev[4], c->ev[5]);
    return 0;
}

static void cuda_after_rep(cs_run *r, cs_energy_reading *e, double *cpu_user, double *cpu_sys)
{
    (void)cpu_user;
    (void)cpu_sys;
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    if (!c->nvml_on) return; /* --energy rapl|none: the runner's reading stands */
    cs_energy_reading g;
    cs_nvml_energy_reading(&c->nvml, &g);
    char host[200] = "";
    if (e->source && !isnan(e->joules))
        snprintf(host, sizeof host, "host %s energy (%s) in joules_pkg/core/dram", e->scope,
                 e->source);
    else if (e->note[0])
        snprintf(host, sizeof host, "host energy: %s", e->note);
    e->joules_gpu = g.joules_gpu;
    e->joules_h2d = g.joules_h2d;
    e->joules_kernel = g.joules_kernel;
    e->joules_d2h = g.joules_d2h;
    e->joules = g.joules;
    e->source = g.source;
    e->nodes = g.source ? 1 : 0;
    snprintf(e->scope, sizeof e->scope, "%s", g.source ? "gpu" : "");
    char note[sizeof e->note];
    snprintf(note, sizeof note, "%s%s%s", g.note, host[0] ? "; " : "", host);
    memcpy(e->note, note, sizeof note);
}

static void cuda_finish(cs_run *r)
{
    cuda_ctx *c = (cuda_ctx *)r->ctx;
    if (c->d_buf) cudaFree(c->d_buf);
    c->d_buf = NULL;
    for (int i = 0; i < c->nev; i++) cudaEventDestroy(c->ev[i]);
    c->nev = 0;
    if (c->stream) cudaStreamDestroy(c->stream);
    c->stream = NULL;
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
    be.setup = cuda_setup;
    be.alloc = cuda_alloc;
    be.dealloc = cuda_dealloc;
    be.rep = cuda_rep;
    be.after_rep = cuda_after_rep;
    be.finish = cuda_finish;
    return cs_runner_main(argc, argv, &be, &ctx);
}
