/* verify.c - every repetition's output compared in full with the expected output,
 * outside the timed region (see verify.h). */
#include <string.h>

#include "aead_run.h"
#include "verify.h"

int cs_verify_output(cs_run *r, size_t *bad_off)
{
    if (r->out_len != r->ref_len) {
        *bad_off = r->out_len < r->ref_len ? r->out_len : r->ref_len;
        return -1;
    }
    if (memcmp(r->out, r->ref, r->ref_len) != 0) {
        size_t i = 0;
        while (r->out[i] == r->ref[i])
            i++;
        *bad_off = i;
        return -1;
    }
    if (r->aead)
        return cs_aead_verify(r, bad_off);
    if (r->be->verify)
        return r->be->verify(r, bad_off);
    return 0;
}
