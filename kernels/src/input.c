/* input.c - the deterministic input generator and whole-file I/O. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"

/* splitmix64 (Steele, Lea & Flood 2014; the seeding generator of xoshiro): output i is
 * mix(seed + (i + 1) * 0x9e3779b97f4a7c15), stored little-endian, 8 bytes per output. */
void cs_generate(uint8_t *buf, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        for (size_t j = 0; j < 8 && i + j < n; j++)
            buf[i + j] = (uint8_t)(z >> (8 * j));
    }
}

int cs_read_file(const char *path, uint8_t **buf, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f); /* fopen opens a directory for reading; its "size" is not one */
        errno = EISDIR;
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *p = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long sz = ftell(f);
        if (sz > 0)
            cap = (size_t)sz + 1;
        rewind(f);
    }
    p = malloc(cap);
    if (!p) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            p = q;
            cap *= 2;
        }
        const size_t got = fread(p + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    const int err = ferror(f);
    fclose(f);
    if (err) {
        free(p);
        errno = EIO;
        return -1;
    }
    *buf = p;
    *n = len;
    return 0;
}

int cs_write_file(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const size_t put = n ? fwrite(buf, 1, n, f) : 0;
    if (fclose(f) != 0 || put != n)
        return -1;
    return 0;
}
