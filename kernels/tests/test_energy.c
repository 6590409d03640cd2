/*
 * test_energy.c - the RAPL powercap reader (energy.c) against fake sysfs trees made by
 * this test with the kernel's real file names (name, energy_uj, max_energy_range_uj,
 * enabled; intel-rapl:N packages with intel-rapl:N:M subzones). The counters are
 * rewritten between cs_energy_begin and cs_energy_end, so deltas, wrap-around and
 * files that become unreadable are exercised for real.
 *
 * Unreadable energy_uj is produced three ways: mode 000 read by an unprivileged user
 * (when run as root, a forked child drops to uid/gid 65534 first, because root reads
 * mode-000 files), energy_uj being a directory, and energy_uj being a dangling symlink.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "energy.h"

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static char g_root[256];

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static void put(const char *rel, const char *fmt, ...)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    FILE *f = fopen(path, "w");
    if (!f) die(path);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static void mkd(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die(path);
}

/* A zone directory with the four real files. */
static void zone(const char *rel, const char *name, unsigned long long uj,
                 unsigned long long range)
{
    char p[400];
    mkd(rel);
    snprintf(p, sizeof p, "%s/name", rel);
    put(p, "%s", name);
    snprintf(p, sizeof p, "%s/energy_uj", rel);
    put(p, "%llu", uj);
    snprintf(p, sizeof p, "%s/max_energy_range_uj", rel);
    put(p, "%llu", range);
    snprintf(p, sizeof p, "%s/enabled", rel);
    put(p, "1");
}

static void set_uj(const char *rel, unsigned long long uj)
{
    char p[400];
    snprintf(p, sizeof p, "%s/energy_uj", rel);
    put(p, "%llu", uj);
}

static const char *g_base; /* where trees are made: $TMPDIR or /tmp */

static void fresh_root(void)
{
    if (g_root[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "chmod -R u+rwX '%s' 2>/dev/null; rm -rf '%s'", g_root, g_root);
        if (system(cmd) != 0) die("rm");
    }
    const char *tmp = g_base ? g_base : getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/cs-powercap-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_root)) die("mkdtemp");
    chmod(g_root, 0755);
    setenv("CIPHERSWEEP_POWERCAP_ROOT", g_root, 1);
}

#define RANGE 262143328850ULL

static void test_none_and_absent(void)
{
    cs_energy e;
    cs_energy_reading r;
    cs_energy_open(&e, "none");
    CHECK(!e.active, "none must be inactive");
    CHECK(strcmp(e.note, "energy disabled (--energy none)") == 0, "note '%s'", e.note);
    cs_energy_begin(&e);
    cs_energy_end(&e, &r);
    CHECK(isnan(r.joules) && r.source == NULL && r.nodes == 0, "none reading");
    CHECK(strcmp(r.note, "energy disabled (--energy none)") == 0, "note '%s'", r.note);

    setenv("CIPHERSWEEP_POWERCAP_ROOT", "/nonexistent/powercap", 1);
    cs_energy_open(&e, "auto");
    CHECK(!e.active && strcmp(e.note, "powercap not present") == 0, "absent: '%s'", e.note);
    cs_energy_begin(&e);
    cs_energy_end(&e, &r);
    CHECK(isnan(r.joules) && isnan(r.joules_pkg) && isnan(r.joules_gpu), "absent reading");
    CHECK(strcmp(r.note, "powercap not present") == 0, "note '%s'", r.note);

    /* A powercap root with no intel-rapl zone at all (e.g. only dtpm). */
    fresh_root();
    mkd("dtpm");
    cs_energy_open(&e, "rapl");
    CHECK(!e.active && strcmp(e.note, "powercap not present") == 0, "empty: '%s'", e.note);

    cs_energy_open(&e, "bogus");
    CHECK(!e.active && strstr(e.note, "unknown energy mode") != NULL, "bogus: '%s'", e.note);

    cs_energy_reading_none(&r, "why");
    CHECK(isnan(r.joules) && isnan(r.joules_h2d) && isnan(r.joules_kernel) &&
              isnan(r.joules_d2h) && isnan(r.joules_dram) && isnan(r.joules_core) &&
              r.source == NULL && strcmp(r.note, "why") == 0,
          "reading_none");
}

/* One package with core, uncore and dram inside it, plus a top-level psys zone. */
static void test_single_package(void)
{
    fresh_root();
    zone("intel-rapl:0", "package-0", 1000000, RANGE);
    zone("intel-rapl:0/intel-rapl:0:0", "core", 500000, RANGE);
    zone("intel-rapl:0/intel-rapl:0:1", "uncore", 10, RANGE);
    zone("intel-rapl:0/intel-rapl:0:2", "dram", 200000, RANGE);
    zone("intel-rapl:1", "psys", 42, RANGE);
    mkd("intel-rapl-mmio:0"); /* ignored control type */

    cs_energy e;
    cs_energy_reading r;
    cs_energy_open(&e, "auto");
    CHECK(e.active, "tree must be active: '%s'", e.note);
    CHECK(e.ndomains == 3, "package, core, dram: %d", e.ndomains);
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 1000000 + 12500000);          /* +12.5 J */
    set_uj("intel-rapl:0/intel-rapl:0:0", 500000 + 8000000); /* +8 J */
    set_uj("intel-rapl:0/intel-rapl:0:2", 200000 + 1500000); /* +1.5 J */
    set_uj("intel-rapl:1", 99999999);
    cs_energy_end(&e, &r);
    CHECK(r.source && strcmp(r.source, "rapl") == 0, "source rapl");
    CHECK(NEAR(r.joules_pkg, 12.5), "pkg %.9f", r.joules_pkg);
    CHECK(NEAR(r.joules_core, 8.0), "core %.9f", r.joules_core);
    CHECK(NEAR(r.joules_dram, 1.5), "dram %.9f", r.joules_dram);
    CHECK(NEAR(r.joules, 14.0), "joules = package + dram: %.9f", r.joules);
    CHECK(strcmp(r.scope, "package+dram") == 0, "scope '%s'", r.scope);
    CHECK(r.nodes == 1, "nodes %d", r.nodes);
    CHECK(isnan(r.joules_gpu), "no gpu");
    CHECK(strstr(r.note, "not summed: uncore,psys") != NULL, "note '%s'", r.note);

    /* begin again: a second repetition measures only its own region */
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 1000000 + 12500000 + 3000000);
    cs_energy_end(&e, &r);
    CHECK(NEAR(r.joules_pkg, 3.0), "second region pkg %.9f", r.joules_pkg);
    CHECK(NEAR(r.joules_dram, 0.0) && NEAR(r.joules, 3.0), "second region total %.9f", r.joules);
}

/* Package counter wraps between begin and end; core wraps too. */
static void test_wrap(void)
{
    fresh_root();
    zone("intel-rapl:0", "package-0", RANGE - 2000000, RANGE); /* 2 J before the wrap */
    zone("intel-rapl:0/intel-rapl:0:0", "core", 65000000, 65536000000ULL);
    cs_energy e;
    cs_energy_reading r;
    cs_energy_open(&e, "rapl");
    CHECK(e.active, "active: '%s'", e.note);
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 3000000);                 /* wrapped, 3 J after: 5 J */
    set_uj("intel-rapl:0/intel-rapl:0:0", 65001000); /* no wrap: 0.001 J */
    cs_energy_end(&e, &r);
    CHECK(NEAR(r.joules_pkg, 5.0), "wrapped pkg %.9f", r.joules_pkg);
    CHECK(NEAR(r.joules, 5.0) && strcmp(r.scope, "package") == 0, "%.9f '%s'", r.joules, r.scope);
    CHECK(NEAR(r.joules_core, 0.001), "core %.9f", r.joules_core);
    CHECK(isnan(r.joules_dram), "no dram zone -> NaN");

    /* A wrap with an unusable max_energy_range_uj cannot be measured: NaN + note. */
    fresh_root();
    zone("intel-rapl:0", "package-0", 9000000, 0);
    cs_energy_open(&e, "auto");
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 100);
    cs_energy_end(&e, &r);
    CHECK(isnan(r.joules) && r.source == NULL, "unknown range: no guess (%.3f)", r.joules);
    CHECK(strstr(r.note, "wrapped without a usable max_energy_range_uj") != NULL, "'%s'", r.note);
}

/* Two packages; subzones only at the top level (as the links in /sys/class/powercap). */
static void test_two_packages_top_level_subzones(void)
{
    fresh_root();
    zone("intel-rapl:0", "package-0", 100, RANGE);
    zone("intel-rapl:1", "package-1", 200, RANGE);
    zone("intel-rapl:0:0", "dram", 300, RANGE);
    zone("intel-rapl:1:0", "dram", 400, RANGE);
    cs_energy e;
    cs_energy_reading r;
    cs_energy_open(&e, "auto");
    CHECK(e.active && e.ndomains == 4, "4 domains: %d '%s'", e.ndomains, e.note);
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 100 + 1000000);
    set_uj("intel-rapl:1", 200 + 2000000);
    set_uj("intel-rapl:0:0", 300 + 250000);
    set_uj("intel-rapl:1:0", 400 + 750000);
    cs_energy_end(&e, &r);
    CHECK(NEAR(r.joules_pkg, 3.0), "pkg sum %.9f", r.joules_pkg);
    CHECK(NEAR(r.joules_dram, 1.0), "dram sum %.9f", r.joules_dram);
    CHECK(NEAR(r.joules, 4.0) && strcmp(r.scope, "package+dram") == 0, "%.9f '%s'", r.joules, r.scope);
    CHECK(strstr(r.note, "2 packages summed") != NULL, "note '%s'", r.note);

    /* dram on only one of two packages: reported but not summed into joules */
    fresh_root();
    zone("intel-rapl:0", "package-0", 0, RANGE);
    zone("intel-rapl:1", "package-1", 0, RANGE);
    zone("intel-rapl:0/intel-rapl:0:0", "dram", 0, RANGE);
    cs_energy_open(&e, "auto");
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 1000000);
    set_uj("intel-rapl:1", 1000000);
    set_uj("intel-rapl:0/intel-rapl:0:0", 1000000);
    cs_energy_end(&e, &r);
    CHECK(NEAR(r.joules, 2.0) && strcmp(r.scope, "package") == 0, "%.9f '%s'", r.joules, r.scope);
    CHECK(NEAR(r.joules_dram, 1.0), "dram %.9f", r.joules_dram);
    CHECK(strstr(r.note, "dram not summed") != NULL, "note '%s'", r.note);
}

/* energy_uj that even root cannot read: a directory, a dangling link, garbage. */
static void test_unreadable_as_anyone(void)
{
    char p[600];
    cs_energy e;
    cs_energy_reading r;

    fresh_root();
    zone("intel-rapl:0", "package-0", 1, RANGE);
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", g_root);
    if (unlink(p) != 0 || mkdir(p, 0755) != 0) die(p);
    cs_energy_open(&e, "auto");
    CHECK(!e.active, "directory energy_uj must be inactive");
    char want[700];
    snprintf(want, sizeof want, "cannot read %s: %s", p, strerror(EISDIR));
    CHECK(strcmp(e.note, want) == 0, "note '%s' want '%s'", e.note, want);
    cs_energy_begin(&e);
    cs_energy_end(&e, &r);
    CHECK(isnan(r.joules) && r.source == NULL && strcmp(r.note, want) == 0, "reading '%s'", r.note);

    fresh_root();
    zone("intel-rapl:0", "package-0", 1, RANGE);
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", g_root);
    if (unlink(p) != 0 || symlink("/nonexistent/energy_uj", p) != 0) die(p);
    cs_energy_open(&e, "auto");
    snprintf(want, sizeof want, "cannot read %s: %s", p, strerror(ENOENT));
    CHECK(!e.active && strcmp(e.note, want) == 0, "dangling: '%s'", e.note);

    fresh_root();
    zone("intel-rapl:0", "package-0", 1, RANGE);
    put("intel-rapl:0/energy_uj", "n/a");
    cs_energy_open(&e, "auto");
    CHECK(!e.active && strstr(e.note, "not a counter value") != NULL, "garbage: '%s'", e.note);

    /* Unreadable dram only: package still measured, dram left out with a note. */
    fresh_root();
    zone("intel-rapl:0", "package-0", 0, RANGE);
    zone("intel-rapl:0/intel-rapl:0:0", "dram", 0, RANGE);
    snprintf(p, sizeof p, "%s/intel-rapl:0/intel-rapl:0:0/energy_uj", g_root);
    if (unlink(p) != 0 || mkdir(p, 0755) != 0) die(p);
    cs_energy_open(&e, "auto");
    CHECK(e.active, "package still usable: '%s'", e.note);
    cs_energy_begin(&e);
    set_uj("intel-rapl:0", 7000000);
    cs_energy_end(&e, &r);
    CHECK(NEAR(r.joules, 7.0) && strcmp(r.scope, "package") == 0, "%.9f '%s'", r.joules, r.scope);
    CHECK(isnan(r.joules_dram), "dram NaN");
    CHECK(strstr(r.note, "intel-rapl:0:0/energy_uj") != NULL, "note names dram: '%s'", r.note);

    /* Readable at open, gone at end: that region is unmeasured, not guessed. */
    fresh_root();
    zone("intel-rapl:0", "package-0", 0, RANGE);
    cs_energy_open(&e, "auto");
    cs_energy_begin(&e);
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", g_root);
    if (unlink(p) != 0 || mkdir(p, 0755) != 0) die(p);
    cs_energy_end(&e, &r);
    CHECK(isnan(r.joules) && r.source == NULL, "vanished counter -> NaN");
    CHECK(strstr(r.note, "energy_uj") != NULL, "note '%s'", r.note);
}

/* EACCES: mode 000 energy_uj (as on Linux >= 5.10 for non-root users). */
static int eacces_case(void)
{
    int fails = 0;
    cs_energy e;
    cs_energy_reading r;
    char want[700];
    snprintf(want, sizeof want, "permission denied on %s/intel-rapl:0/energy_uj", g_root);
    cs_energy_open(&e, "auto");
    if (e.active || strcmp(e.note, want) != 0) {
        fprintf(stderr, "FAIL eacces: active=%d note '%s' want '%s'\n", e.active, e.note, want);
        fails++;
    }
    cs_energy_begin(&e);
    cs_energy_end(&e, &r);
    if (!isnan(r.joules) || r.source != NULL || strcmp(r.note, want) != 0) {
        fprintf(stderr, "FAIL eacces reading: %f '%s'\n", r.joules, r.note);
        fails++;
    }
    return fails;
}

static void test_permission_denied(void)
{
    /* The unprivileged child must be able to reach the tree: make it under /tmp. */
    g_base = "/tmp";
    fresh_root();
    g_base = NULL;
    zone("intel-rapl:0", "package-0", 5, RANGE);
    char p[600];
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", g_root);
    if (chmod(p, 0) != 0) die(p);
    if (geteuid() != 0) {
        int f = eacces_case();
        CHECK(f == 0, "EACCES case as uid %d", (int)geteuid());
        return;
    }
    /* root reads mode-000 files: check in a child that dropped to nobody/nogroup. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
            perror("drop privileges");
            _exit(99);
        }
        _exit(eacces_case() ? 1 : 0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0) die("waitpid");
    if (WIFEXITED(st) && WEXITSTATUS(st) == 99) {
        /* e.g. a container without CAP_SETUID: EACCES cannot be produced for root */
        printf("test_energy: EACCES case not run: cannot drop root privileges here\n");
        return;
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "EACCES case as uid 65534 (status %d)", st);
}

int main(void)
{
    test_none_and_absent();
    test_single_package();
    test_wrap();
    test_two_packages_top_level_subzones();
    test_unreadable_as_anyone();
    test_permission_denied();
    fresh_root(); /* removes the last tree ... */
    rmdir(g_root); /* ... and the empty one it made */
    printf("test_energy: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
