/* aead_impl.c - the AEAD dispatch table: impl name -> functions, run-time CPU checks,
 * and the cross-check partner of each Ascon impl. */
#include <string.h>

#include "aead.h"

static const cs_aead_impl *const table[] = {
    &cs_aead_ascon_ref, &cs_aead_ascon_opt64, &cs_aead_ascon_lowsize, &cs_aead_gcm_byte,
    &cs_aead_gcm_ref,   &cs_aead_gcm_aesni,   NULL,
};

const cs_aead_impl *const *cs_aead_impls(void) { return table; }

int cs_aead_cipher_known(const char *cipher)
{
    for (int i = 0; table[i]; i++)
        if (strcmp(table[i]->cipher, cipher) == 0)
            return 1;
    return 0;
}

/* "auto": the best impl of the cipher the CPU has (never a reference one): Ascon ->
 * ascon-opt64, GCM -> gcm-aesni, else gcm-ref. */
static const cs_aead_impl *best(const char *cipher)
{
    static const cs_aead_impl *const pref[] = {&cs_aead_ascon_opt64, &cs_aead_gcm_aesni,
                                               &cs_aead_gcm_ref, NULL};
    for (int i = 0; pref[i]; i++)
        if (strcmp(pref[i]->cipher, cipher) == 0 && pref[i]->available() &&
            !cs_aes_impl_disabled(pref[i]->name))
            return pref[i];
    return NULL;
}

const cs_aead_impl *cs_aead_impl_find(const char *cipher, const char *name, int *missing)
{
    *missing = 0;
    if (strcmp(name, "auto") == 0)
        return best(cipher);
    for (int i = 0; table[i]; i++) {
        if (strcmp(table[i]->cipher, cipher) != 0 || strcmp(table[i]->name, name) != 0)
            continue;
        if (!table[i]->available())
            *missing = 1;
        else if (cs_aes_impl_disabled(name))
            *missing = 2;
        return table[i];
    }
    return NULL;
}

const cs_aead_impl *cs_aead_crosscheck(const cs_aead_impl *impl)
{
    if (strcmp(impl->cipher, "ascon-aead128") != 0)
        return NULL;
    return impl == &cs_aead_ascon_ref ? &cs_aead_ascon_opt64 : &cs_aead_ascon_ref;
}

int cs_aead_tag_differs(const uint8_t a[16], const uint8_t b[16])
{
    unsigned d = 0;
    for (int i = 0; i < 16; i++)
        d |= (unsigned)(a[i] ^ b[i]);
    return d != 0;
}
