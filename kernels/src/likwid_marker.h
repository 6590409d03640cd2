/*
 * likwid_marker.h - likwid's Marker API around the timed region, in marker mode only.
 *
 * `likwid-perfctr -m` runs the kernel with LIKWID_MODE, LIKWID_FILEPATH, LIKWID_EVENTS
 * and LIKWID_THREADS set; then, and only then, liblikwid is opened (dlopen) and the
 * region "aes" is marked. Linked instead, the dynamic loader would relocate
 * liblikwid's 14 MB of data at every kernel start (about 7 ms), marker mode or not.
 * Compiled in when CMake finds likwid (CS_HAVE_LIKWID; CS_LIKWID_LIBRARY names the
 * library); otherwise markers are never on.
 */
#ifndef CIPHERSWEEP_LIKWID_MARKER_H
#define CIPHERSWEEP_LIKWID_MARKER_H

typedef struct cs_marker {
    void *lib; /* liblikwid while markers are on; NULL: off */
    int (*start)(const char *region);
    int (*stop)(const char *region);
    void (*close)(void);
} cs_marker;

/* Markers on, in marker mode: liblikwid opened and likwid_markerInit called. Returns
 * 1 when on, 0 when off (not marker mode; or liblikwid could not be opened, which a
 * line on stderr says: the run goes on, likwid's output then has no region "aes"). */
int cs_marker_open(cs_marker *m);
void cs_marker_start(const cs_marker *m);
void cs_marker_stop(const cs_marker *m);
void cs_marker_close(cs_marker *m); /* writes likwid's marker file */

#endif
