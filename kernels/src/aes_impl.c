/* aes_impl.c - the dispatch table: impl name -> functions, with run-time CPU checks. */
#include <string.h>

#include "aes.h"

static const cs_aes_impl *const table[] = {
    &cs_aes_impl_ref, &cs_aes_impl_ttable, &cs_aes_impl_aesni, &cs_aes_impl_vaes, NULL,
};

const cs_aes_impl *const *cs_aes_impls(void) { return table; }

const cs_aes_impl *cs_aes_impl_find(const char *name, int *missing)
{
    *missing = 0;
    if (strcmp(name, "auto") == 0) {
        /* best first: vaes > aesni > ttable (ref is never chosen automatically) */
        for (int i = 3; i >= 1; i--)
            if (table[i]->available())
                return table[i];
        return &cs_aes_impl_ttable;
    }
    for (int i = 0; table[i]; i++) {
        if (strcmp(table[i]->name, name) == 0) {
            if (!table[i]->available()) {
                *missing = 1;
                return table[i];
            }
            return table[i];
        }
    }
    return NULL;
}
