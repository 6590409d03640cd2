/*
 * mpi_partition.h - how aes-mpi shares a message among its ranks (mpi_partition.c),
 * kept apart from MPI so that a unit test can check every shape.
 *
 * The message of n bytes is ceil(n / 16) blocks; rank i gets the contiguous blocks
 * [nb * i / p, nb * (i + 1) / p) (shares differ by at most one block; with fewer
 * blocks than ranks some ranks get none), the last share ends at byte n (a partial last
 * block).  grow: ECB encryption with PKCS#7 padding, the last share's output grows to
 * the next whole block (a full pad block when it is already whole; SP 800-38A
 * Appendix A's padding as openssl enc applies it).  Counts and displacements are ints
 * (MPI_Scatterv/MPI_Gatherv); a message whose output does not fit is refused.
 */
#ifndef CIPHERSWEEP_MPI_PARTITION_H
#define CIPHERSWEEP_MPI_PARTITION_H

#include <stdint.h>

typedef struct {
    int *cnt_in, *dsp_in;     /* bytes of the message each rank gets, and where they start */
    int *cnt_out, *dsp_out;   /* bytes of output each rank returns, and where they go */
    uint64_t *first_block;    /* the message's block index of each share (CTR counter) */
} cs_mpi_partition;

/* Fills the p entries of each array (allocated by the caller).  Returns 0, or -1 when
 * p < 1 or the output (n + 16 bytes at most) does not fit in an int. */
int cs_mpi_partition_fill(cs_mpi_partition *pt, uint64_t n, int p, int grow);

#endif
