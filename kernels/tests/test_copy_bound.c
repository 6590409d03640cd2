/*
 * test_copy_bound.c - the copy limit's arithmetic (copy_bound.c) on the CPU, with the
 * rates measured on one H200 (2026-11, 1 GiB pinned copies): H2D 45.9 GB/s and D2H
 * 55.3 GB/s alone, 38.0 and 53.4 GB/s at once; aes-cuda --streams 4 reached 352 Gbps
 * (44 GB/s) end to end there, which the old limit, min of the two rates at once (38.0
 * GB/s = 304 Gbps), put at "1.16 of copy limit".  The limit is the best rate of the
 * slower link (H2D alone, 367 Gbps): end to end <= limit.  The mix of the measured modes
 * (both at once, then H2D alone to catch up) reaches 39.98 GB/s.
 */
#include "copy_bound.h"

#include <math.h>

#include "check.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12; }

int main(void)
{
    const cs_copy_rates h200 = {45.9, 55.3, 38.0, 53.4};
    CHECK(near(cs_copy_best_h2d(&h200), 45.9) && near(cs_copy_best_d2h(&h200), 55.3), "best rates");
    CHECK(near(cs_copy_limit(&h200), 45.9), "limit %g", cs_copy_limit(&h200));
    CHECK(352.0 / 8.0 <= cs_copy_limit(&h200), "the measured end to end is within the limit");
    /* x = 45.9 / (53.4 - 38.0 + 45.9); 53.4 x = 39.985... */
    const double mix = 53.4 * 45.9 / (53.4 - 38.0 + 45.9);
    CHECK(near(cs_copy_mix(&h200), mix), "mix %g (want %g)", cs_copy_mix(&h200), mix);
    CHECK(cs_copy_mix(&h200) <= cs_copy_limit(&h200), "mix within the limit");

    /* links that do not slow each other: both at once is the whole story */
    const cs_copy_rates free_links = {25.0, 25.0, 25.0, 25.0};
    CHECK(near(cs_copy_limit(&free_links), 25.0) && near(cs_copy_mix(&free_links), 25.0), "free links");

    /* one shared link (at once each gets half): one after the other does as well */
    const cs_copy_rates shared = {20.0, 20.0, 10.0, 10.0};
    CHECK(near(cs_copy_mix(&shared), 10.0) && near(cs_copy_limit(&shared), 20.0), "shared link");

    /* a rate seen faster at once than alone counts for the limit */
    const cs_copy_rates faster_at_once = {30.0, 50.0, 35.0, 40.0};
    CHECK(near(cs_copy_limit(&faster_at_once), 35.0), "best of alone and at once");
    CHECK(cs_copy_mix(&faster_at_once) <= cs_copy_limit(&faster_at_once), "mix within the limit");

    /* D2H falls behind at once: balanced with D2H alone */
    const cs_copy_rates d2h_behind = {50.0, 40.0, 45.0, 30.0};
    const double mix_d = 45.0 * 40.0 / (45.0 - 30.0 + 40.0);
    CHECK(near(cs_copy_mix(&d2h_behind), mix_d), "mix d2h behind %g", cs_copy_mix(&d2h_behind));

    /* a direction not measured: no limit */
    const cs_copy_rates missing = {45.9, 0.0, 0.0, 0.0};
    CHECK(cs_copy_limit(&missing) == 0.0 && cs_copy_mix(&missing) == 0.0, "missing rate");
    printf("test_copy_bound: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
