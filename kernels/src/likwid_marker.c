/* likwid_marker.c - likwid's Marker API, opened at run time in marker mode (see
 * likwid_marker.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "likwid_marker.h"

#define CS_MARKER_REGION "aes"

#if defined(CS_HAVE_LIKWID)
#include <dlfcn.h>

static int marker_mode(void)
{
    return getenv("LIKWID_MODE") && getenv("LIKWID_FILEPATH") && getenv("LIKWID_EVENTS") &&
           getenv("LIKWID_THREADS");
}

/* The function `name` of `lib` into *fn (a function pointer of `size` bytes: POSIX
 * gives function and object pointers one representation). */
static int bind(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return -1;
    memcpy(fn, &p, size);
    return 0;
}

int cs_marker_open(cs_marker *m)
{
    memset(m, 0, sizeof *m);
    if (!marker_mode())
        return 0;
    void *lib = dlopen(CS_LIKWID_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    void (*init)(void) = NULL;
    if (!lib || bind(lib, "likwid_markerInit", &init, sizeof init) != 0 ||
        bind(lib, "likwid_markerStartRegion", &m->start, sizeof m->start) != 0 ||
        bind(lib, "likwid_markerStopRegion", &m->stop, sizeof m->stop) != 0 ||
        bind(lib, "likwid_markerClose", &m->close, sizeof m->close) != 0) {
        fprintf(stderr, "likwid marker mode: cannot use %s: %s; no region \"%s\"\n",
                CS_LIKWID_LIBRARY, dlerror(), CS_MARKER_REGION);
        memset(m, 0, sizeof *m);
        return 0; /* liblikwid stays loaded, if it was: never unloaded under a run */
    }
    m->lib = lib;
    init();
    return 1;
}
#else
int cs_marker_open(cs_marker *m)
{
    memset(m, 0, sizeof *m);
    return 0;
}
#endif

void cs_marker_start(const cs_marker *m)
{
    if (m->lib)
        m->start(CS_MARKER_REGION);
}

void cs_marker_stop(const cs_marker *m)
{
    if (m->lib)
        m->stop(CS_MARKER_REGION);
}

void cs_marker_close(cs_marker *m)
{
    if (m->lib)
        m->close();
    m->lib = NULL; /* liblikwid is not unloaded: it may hold exit handlers */
}
