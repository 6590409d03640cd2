/* aes_impl.c - the dispatch table: impl name -> functions, with run-time CPU checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aes.h"

static const cs_aes_impl *const table[] = {
    &cs_aes_impl_ref,     &cs_aes_impl_ttable, &cs_aes_impl_aesni,
    &cs_aes_impl_vaes256, &cs_aes_impl_vaes,   NULL,
};

const cs_aes_impl *const *cs_aes_impls(void) { return table; }

void cs_aes_impl_names(char *buf, size_t n, const char *sep)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; table[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", table[i]->name, sep);
    if (len < n)
        snprintf(buf + len, n - len, "auto");
}

int cs_aes_impl_disabled(const char *name)
{
    const char *d = getenv("CIPHERSWEEP_DISABLE_IMPLS");
    const size_t n = strlen(name);
    while (d && *d) {
        const size_t len = strcspn(d, ", ");
        if (len == n && strncmp(d, name, n) == 0)
            return 1;
        d += len;
        d += strspn(d, ", ");
    }
    return 0;
}

const cs_aes_impl *cs_aes_impl_find(const char *name, int *missing)
{
    *missing = 0;
    if (strcmp(name, "auto") == 0) {
        /* best first: vaes (512-bit, AVX-512) > vaes256 (ymm) > aesni > ttable (ref is
         * never chosen automatically) */
        int last = 0;
        while (table[last + 1])
            last++;
        for (int i = last; i >= 1; i--)
            if (table[i]->available() && !cs_aes_impl_disabled(table[i]->name))
                return table[i];
        return &cs_aes_impl_ttable;
    }
    for (int i = 0; table[i]; i++) {
        if (strcmp(table[i]->name, name) == 0) {
            if (!table[i]->available())
                *missing = 1;
            else if (cs_aes_impl_disabled(name))
                *missing = 2;
            return table[i];
        }
    }
    return NULL;
}
