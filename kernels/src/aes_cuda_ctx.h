/*
 * aes_cuda_ctx.h - aes-cuda's own state, shared by its two files: aes_cuda.cu (device
 * set-up, buffers, one repetition serial or overlapped) and aes_cuda_energy.cu (GPU
 * energy: per-phase readings, the energy windows, GPU provenance in the record).
 */
#ifndef CIPHERSWEEP_AES_CUDA_CTX_H
#define CIPHERSWEEP_AES_CUDA_CTX_H

#include "aes_cuda_impl.h"

extern "C" {
#include "cuda_chunks.h"
#include "energy.h"
#include "runner.h"
}
#include "nvml_energy.h"

#define CS_CUDA_MAX_STREAMS 64

/* What one repetition does (from the options and the input length). */
typedef struct {
    int kind;                 /* CS_K_* */
    size_t n;                 /* message bytes copied to the device */
    size_t dev_out;           /* result bytes (ECB encryption with padding: padded) */
    unsigned long long nblocks;
    unsigned padv;
    int nr;
} cuda_job;

typedef struct {
    int device;
    const cs_cuda_impl *impl;
    int overlapped;           /* --streams > 1 or --chunk given */
    int streams;
    size_t chunk;
    int streams_used;         /* in the last repetition */
    cudaStream_t st[CS_CUDA_MAX_STREAMS];
    int nst;
    cudaEvent_t *ev;          /* 4 per chunk (serial: 6) */
    int nev;
    cs_chunk *chunks;
    size_t chunk_cap;
    uint8_t *d_buf;
    size_t d_cap;
    int grid_cap[CS_K_KINDS]; /* resident thread blocks on the whole GPU, per kernel */
    cuda_job job;             /* of the last repetition */
    double last_total, last_compute;
    int in_window;            /* repetitions of an energy window: no per-phase marks */

    int nvml_on;
    cs_nvml_energy nvml;
    double nvml_s;            /* time spent reading NVML in this repetition */
    double phase_s[3];        /* H2D, kernel, D2H of the last serial repetition */
    char period_note[160];
    cs_nvml_gpu_state at_start, at_end;
    int windows_done;
    cs_nvml_window_plan plan;
    cs_nvml_window_result win_kernel, win_total;
} cuda_ctx;

/* aes_cuda.cu */
int cs_cuda_run_job(cs_run *r, cuda_ctx *c, cs_timings *t);
int cs_cuda_kernel_only(cs_run *r, cuda_ctx *c, int times);
int cs_cuda_fail(cs_run *r, const char *what, cudaError_t e);

/* aes_cuda_energy.cu */
void cs_cuda_energy_open(cs_run *r, cuda_ctx *c);
void cs_cuda_nvml_mark(cuda_ctx *c, int which);
void cs_cuda_after_rep(cs_run *r, cs_energy_reading *e, double *cpu_user, double *cpu_sys);
void cs_cuda_record_fields(const cs_run *r, cs_buf *b);

#endif
