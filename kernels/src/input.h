/* input.h - the deterministic input generator and whole-file I/O (input.c). */
#ifndef CIPHERSWEEP_INPUT_H
#define CIPHERSWEEP_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The one input generator: splitmix64 stream from seed, 8 bytes little-endian each. */
void cs_generate(uint8_t *buf, size_t n, uint64_t seed);
/* Whole file into a fresh malloc'ed buffer; returns 0 or -1 (errno set). */
int cs_read_file(const char *path, uint8_t **buf, size_t *n);
int cs_write_file(const char *path, const uint8_t *buf, size_t n);

#endif
