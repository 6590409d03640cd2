/*
 * energy.c - RAPL energy of a kernel's timed region through the Linux powercap sysfs
 * interface (see energy.h for the contract).
 *
 * Layout read (the kernel's real file names):
 *   <root>/intel-rapl:N/                 one zone per package (socket); AMD uses the
 *       name                             same "intel-rapl" control type
 *       energy_uj                        cumulative counter, microjoules
 *       max_energy_range_uj              value at which energy_uj wraps to 0
 *       enabled                          0/1 (a disabled zone still counts on most CPUs;
 *                                        it is reported in the note, not skipped)
 *       intel-rapl:N:M/                  subzones: name core | uncore | dram
 *   <root>/intel-rapl:N:M                the same subzones, also linked at the top level
 * A top-level zone whose name is not "package-*" (e.g. "psys", the platform zone of
 * some laptops) is not a package and is not summed.
 *
 * What is summed: joules = sum of all packages (+ sum of all dram zones when every
 * package has a readable one). core is part of package and uncore too; they are not
 * added again (joules_core is reported on its own, uncore/psys only in the note).
 * The scope string says exactly what joules contains: "package" or "package+dram".
 *
 * Wrap-around: a counter that reads lower at the end than at the begin wrapped once:
 * delta = end + max_energy_range_uj - start. Several wraps inside one region cannot be
 * seen (max_energy_range_uj is ~262 kJ on current CPUs: minutes to hours at full power).
 *
 * Unreadable counters: energy_uj is root-only (mode 0400) since Linux 5.10
 * (CVE-2020-8694). EACCES/EPERM -> source inactive, note "permission denied on
 * <path>/energy_uj"; any other failure (not a regular file, dangling link, garbage)
 * -> inactive, note "cannot read <path>/energy_uj: <reason>". A package that cannot be
 * read makes the whole source inactive (a partial package sum would be a guess);
 * an unreadable dram/core subzone is dropped with a note.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "energy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { DOM_PKG, DOM_CORE, DOM_DRAM, DOM_OTHER };

void cs_energy_reading_none(cs_energy_reading *out, const char *note)
{
    memset(out, 0, sizeof *out);
    out->joules = out->joules_pkg = out->joules_core = out->joules_dram = NAN;
    out->joules_gpu = out->joules_h2d = out->joules_kernel = out->joules_d2h = NAN;
    out->source = NULL;
    out->nodes = 0;
    snprintf(out->note, sizeof out->note, "%s", note ? note : "");
}

/* Appends "; text" (or text) to a note buffer, truncating quietly. */
static void note_add(char *note, size_t cap, const char *text)
{
    size_t n = strlen(note);
    if (n && n + 2 < cap) {
        memcpy(note + n, "; ", 2);
        n += 2;
    }
    for (; *text && n + 1 < cap; text++) note[n++] = *text;
    note[n < cap ? n : cap - 1] = '\0';
}

/* Reads a small text file into buf (trailing newline stripped). 0 on success, else errno
 * (EISDIR for a directory, EINVAL for an empty file). */
static int read_text(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno ? errno : EIO;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return EISDIR;
    }
    ssize_t r;
    do { r = read(fd, buf, cap - 1); } while (r < 0 && errno == EINTR);
    int err = r < 0 ? (errno ? errno : EIO) : 0;
    close(fd);
    if (err) return err;
    buf[r] = '\0';
    while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' ' || buf[r - 1] == '\r'))
        buf[--r] = '\0';
    return r > 0 ? 0 : EINVAL;
}

/* Reads an unsigned decimal counter. 0 on success, else errno (EINVAL: not a number). */
static int read_u64(const char *path, uint64_t *v)
{
    char buf[64];
    int err = read_text(path, buf, sizeof buf);
    if (err) return err;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf || *end != '\0' || buf[0] == '-') return EINVAL;
    *v = (uint64_t)x;
    return 0;
}

static void describe_read_error(char *dst, size_t cap, const char *file, int err)
{
    if (err == EACCES || err == EPERM)
        snprintf(dst, cap, "permission denied on %s", file);
    else if (err == EINVAL)
        snprintf(dst, cap, "cannot read %s: not a counter value", file);
    else
        snprintf(dst, cap, "cannot read %s: %s", file, strerror(err));
}

/* dst = a/b; -1 when it does not fit (such a zone is skipped, never truncated). */
static int join_path(char *dst, size_t cap, const char *a, const char *b)
{
    int n = snprintf(dst, cap, "%s/%s", a, b);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int domain_kind(const char *name)
{
    if (strncmp(name, "package-", 8) == 0) return DOM_PKG;
    if (strcmp(name, "core") == 0) return DOM_CORE;
    if (strcmp(name, "dram") == 0) return DOM_DRAM;
    return DOM_OTHER;
}

/* "intel-rapl:<digits>" -> 1 (package zone), "intel-rapl:<d>:<d>" -> 2, else 0. */
static int zone_level(const char *d, long *pkg)
{
    const char *p = "intel-rapl:";
    size_t n = strlen(p);
    if (strncmp(d, p, n) != 0) return 0;
    const char *s = d + n;
    char *end;
    if (!(*s >= '0' && *s <= '9')) return 0;
    long a = strtol(s, &end, 10);
    if (*end == '\0') { if (pkg) *pkg = a; return 1; }
    if (*end != ':' || !(end[1] >= '0' && end[1] <= '9')) return 0;
    s = end + 1;
    (void)strtol(s, &end, 10);
    if (*end != '\0') return 0;
    if (pkg) *pkg = a;
    return 2;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of directory entries at `dir` that are zones of `level`; caller frees. */
static int list_zones(const char *dir, int level, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0, cap = 0;
    char **v = NULL;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (zone_level(de->d_name, NULL) != level) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[n] = strdup(de->d_name);
        if (v[n]) n++;
    }
    closedir(d);
    if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* Adds the zone at `path` as a domain. Returns 0 when added or deliberately skipped,
 * -1 when a package zone is unreadable (e->note says why). */
static int add_zone(cs_energy *e, const char *path, int *n_pkg_zones, int *n_disabled,
                    char *skipped, size_t skipped_cap)
{
    char file[600], name[64], why[700];
    snprintf(file, sizeof file, "%s/name", path);
    int err = read_text(file, name, sizeof name);
    if (err) {
        describe_read_error(why, sizeof why, file, err);
        note_add(e->note, sizeof e->note, why);
        return -1;
    }
    int kind = domain_kind(name);
    if (kind == DOM_PKG) (*n_pkg_zones)++;
    if (kind == DOM_OTHER) {
        /* uncore, psys, ...: inside package (uncore) or platform-wide (psys); listed. */
        size_t n = strlen(skipped);
        if (!strstr(skipped, name) && n + strlen(name) + 2 < skipped_cap)
            snprintf(skipped + n, skipped_cap - n, "%s%s", n ? "," : "", name);
        return 0;
    }
    uint64_t v = 0;
    snprintf(file, sizeof file, "%s/energy_uj", path);
    err = read_u64(file, &v);
    if (err) {
        describe_read_error(why, sizeof why, file, err);
        note_add(e->note, sizeof e->note, why);
        return kind == DOM_PKG ? -1 : 0;
    }
    if (e->ndomains >= CS_ENERGY_MAX_DOMAINS) {
        note_add(e->note, sizeof e->note, "too many RAPL zones");
        return kind == DOM_PKG ? -1 : 0;
    }
    cs_energy_domain *dom = &e->domain[e->ndomains++];
    memset(dom, 0, sizeof *dom);
    snprintf(dom->name, sizeof dom->name, "%.*s", (int)sizeof dom->name - 1, name); /* zone names are short */
    snprintf(dom->path, sizeof dom->path, "%s", path);
    dom->start_uj = v;
    dom->ok = 1;
    uint64_t range = 0;
    snprintf(file, sizeof file, "%s/max_energy_range_uj", path);
    if (read_u64(file, &range) == 0) dom->max_range_uj = range;
    char en[16];
    snprintf(file, sizeof file, "%s/enabled", path);
    if (read_text(file, en, sizeof en) == 0 && strcmp(en, "0") == 0) (*n_disabled)++;
    return 0;
}

void cs_energy_open(cs_energy *e, const char *mode)
{
    memset(e, 0, sizeof *e);
    if (mode && strcmp(mode, "none") == 0) {
        snprintf(e->note, sizeof e->note, "energy disabled (--energy none)");
        return;
    }
    if (mode && strcmp(mode, "auto") != 0 && strcmp(mode, "rapl") != 0) {
        snprintf(e->note, sizeof e->note, "unknown energy mode '%.64s'", mode);
        return;
    }
    const char *root = getenv("CIPHERSWEEP_POWERCAP_ROOT");
    if (!root || !*root) root = "/sys/class/powercap";

    char **pk = NULL;
    int npk = list_zones(root, 1, &pk);
    if (npk <= 0) {
        free_list(pk, npk > 0 ? npk : 0);
        snprintf(e->note, sizeof e->note, "powercap not present");
        return;
    }
    int n_pkg_zones = 0, n_disabled = 0, failed = 0;
    char skipped[128] = "";
    for (int i = 0; i < npk && !failed; i++) {
        char path[512];
        long pkgno = 0;
        zone_level(pk[i], &pkgno);
        if (join_path(path, sizeof path, root, pk[i]) != 0) {
            snprintf(e->note, sizeof e->note, "powercap root path too long");
            failed = 1;
            break;
        }
        if (add_zone(e, path, &n_pkg_zones, &n_disabled, skipped, sizeof skipped) < 0) {
            failed = 1;
            break;
        }
        /* Subzones: inside the package directory, or only at the top level. */
        char **sub = NULL;
        int nsub = list_zones(path, 2, &sub);
        if (nsub <= 0) {
            free_list(sub, nsub > 0 ? nsub : 0);
            char **top = NULL;
            int ntop = list_zones(root, 2, &top);
            for (int j = 0; j < ntop; j++) {
                long owner = -1;
                zone_level(top[j], &owner);
                if (owner != pkgno) continue;
                char sp[512];
                if (join_path(sp, sizeof sp, root, top[j]) == 0)
                    add_zone(e, sp, &n_pkg_zones, &n_disabled, skipped, sizeof skipped);
            }
            free_list(top, ntop > 0 ? ntop : 0);
        } else {
            for (int j = 0; j < nsub; j++) {
                char sp[512];
                if (join_path(sp, sizeof sp, path, sub[j]) == 0)
                    add_zone(e, sp, &n_pkg_zones, &n_disabled, skipped, sizeof skipped);
            }
            free_list(sub, nsub);
        }
    }
    free_list(pk, npk);

    if (failed) {
        e->active = 0;
        e->ndomains = 0;
        return; /* note already says which file */
    }
    if (n_pkg_zones == 0) {
        e->ndomains = 0;
        note_add(e->note, sizeof e->note, "powercap has no package zone");
        return;
    }
    e->active = 1;
    if (skipped[0]) {
        char t[200];
        snprintf(t, sizeof t, "not summed: %s", skipped);
        note_add(e->note, sizeof e->note, t);
    }
    if (n_disabled) note_add(e->note, sizeof e->note, "some RAPL zones report enabled=0");
}

void cs_energy_begin(cs_energy *e)
{
    if (!e->active) return;
    for (int i = 0; i < e->ndomains; i++) {
        cs_energy_domain *d = &e->domain[i];
        char file[600];
        snprintf(file, sizeof file, "%s/energy_uj", d->path);
        uint64_t v;
        if (read_u64(file, &v) == 0) {
            d->start_uj = v;
            d->ok = 1;
        } else {
            d->ok = 0;
        }
    }
}

void cs_energy_end(cs_energy *e, cs_energy_reading *out)
{
    cs_energy_reading_none(out, e->note);
    if (!e->active) return;

    double sum[3] = {0, 0, 0};
    int count[3] = {0, 0, 0}, bad[3] = {0, 0, 0};
    char note[sizeof out->note];
    snprintf(note, sizeof note, "%s", e->note);
    for (int i = 0; i < e->ndomains; i++) {
        cs_energy_domain *d = &e->domain[i];
        int kind = domain_kind(d->name);
        if (kind == DOM_OTHER) continue;
        char file[600], why[700];
        snprintf(file, sizeof file, "%s/energy_uj", d->path);
        uint64_t end = 0;
        int err = d->ok ? read_u64(file, &end) : EIO;
        if (err) {
            if (d->ok) describe_read_error(why, sizeof why, file, err);
            else snprintf(why, sizeof why, "cannot read %s at begin", file);
            note_add(note, sizeof note, why);
            bad[kind]++;
            continue;
        }
        uint64_t delta;
        if (end >= d->start_uj) {
            delta = end - d->start_uj;
        } else if (d->max_range_uj > d->start_uj) {
            delta = end + (d->max_range_uj - d->start_uj);
        } else {
            snprintf(why, sizeof why, "%s wrapped without a usable max_energy_range_uj",
                     file);
            note_add(note, sizeof note, why);
            bad[kind]++;
            continue;
        }
        sum[kind] += (double)delta * 1e-6;
        count[kind]++;
    }
    if (count[DOM_PKG] == 0 || bad[DOM_PKG]) {
        cs_energy_reading_none(out, note);
        return;
    }
    out->source = "rapl";
    out->nodes = 1;
    out->joules_pkg = sum[DOM_PKG];
    out->joules = sum[DOM_PKG];
    snprintf(out->scope, sizeof out->scope, "package");
    if (count[DOM_CORE] && !bad[DOM_CORE]) out->joules_core = sum[DOM_CORE];
    if (count[DOM_DRAM] && !bad[DOM_DRAM]) {
        out->joules_dram = sum[DOM_DRAM];
        if (count[DOM_DRAM] == count[DOM_PKG]) {
            out->joules += sum[DOM_DRAM];
            snprintf(out->scope, sizeof out->scope, "package+dram");
        } else {
            note_add(note, sizeof note, "dram not summed: not present on every package");
        }
    }
    if (count[DOM_PKG] > 1) {
        char t[64];
        snprintf(t, sizeof t, "%d packages summed", count[DOM_PKG]);
        note_add(note, sizeof note, t);
    }
    snprintf(out->note, sizeof out->note, "%s", note);
}
