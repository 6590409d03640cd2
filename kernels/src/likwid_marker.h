/*
 * likwid_marker.h - likwid Marker API around the timed region, compiled in when
 * likwid's headers are found (CMake defines CS_HAVE_LIKWID and LIKWID_PERFMON).
 * Outside `likwid-perfctr -m` the markers cost nothing measurable; without likwid they
 * are empty macros. The region is always named "aes".
 */
#ifndef CIPHERSWEEP_LIKWID_MARKER_H
#define CIPHERSWEEP_LIKWID_MARKER_H
#if defined(CS_HAVE_LIKWID) && defined(LIKWID_PERFMON)
#include <likwid-marker.h>
#define CS_MARKER_INIT() LIKWID_MARKER_INIT
#define CS_MARKER_THREADINIT() LIKWID_MARKER_THREADINIT
#define CS_MARKER_START() LIKWID_MARKER_START("aes")
#define CS_MARKER_STOP() LIKWID_MARKER_STOP("aes")
#define CS_MARKER_CLOSE() LIKWID_MARKER_CLOSE
#else
#define CS_MARKER_INIT() ((void)0)
#define CS_MARKER_THREADINIT() ((void)0)
#define CS_MARKER_START() ((void)0)
#define CS_MARKER_STOP() ((void)0)
#define CS_MARKER_CLOSE() ((void)0)
#endif
#endif
