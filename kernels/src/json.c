/* json.c - a growable buffer and a writer for flat JSON objects (one record a line). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void reserve(cs_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fputs("ciphersweep: out of memory\n", stderr);
        abort();
    }
    b->p = p;
    b->cap = cap;
}

void cs_buf_free(cs_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void cs_buf_printf(cs_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void cs_json_escape(cs_buf *b, const char *s)
{
    cs_buf_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"': cs_buf_printf(b, "\\\""); break;
        case '\\': cs_buf_printf(b, "\\\\"); break;
        case '\n': cs_buf_printf(b, "\\n"); break;
        case '\r': cs_buf_printf(b, "\\r"); break;
        case '\t': cs_buf_printf(b, "\\t"); break;
        case '\b': cs_buf_printf(b, "\\b"); break;
        case '\f': cs_buf_printf(b, "\\f"); break;
        default:
            if (*c < 0x20 || *c == 0x7f)
                cs_buf_printf(b, "\\u%04x", *c);
            else
                cs_buf_printf(b, "%c", *c);
        }
    }
    cs_buf_printf(b, "\"");
}

static void key(cs_buf *b, const char *k)
{
    if (!b->first)
        cs_buf_printf(b, ", ");
    b->first = 0;
    cs_json_escape(b, k);
    cs_buf_printf(b, ": ");
}

void cs_json_begin(cs_buf *b)
{
    cs_buf_printf(b, "{");
    b->first = 1;
}

void cs_json_end(cs_buf *b) { cs_buf_printf(b, "}\n"); }

void cs_json_str(cs_buf *b, const char *k, const char *v)
{
    key(b, k);
    if (v)
        cs_json_escape(b, v);
    else
        cs_buf_printf(b, "null");
}

void cs_json_int(cs_buf *b, const char *k, long long v)
{
    key(b, k);
    cs_buf_printf(b, "%lld", v);
}

void cs_json_num(cs_buf *b, const char *k, double v)
{
    key(b, k);
    if (isfinite(v))
        cs_buf_printf(b, "%.9g", v);
    else
        cs_buf_printf(b, "null");
}

void cs_json_bool(cs_buf *b, const char *k, int v)
{
    key(b, k);
    cs_buf_printf(b, v ? "true" : "false");
}

void cs_json_null(cs_buf *b, const char *k)
{
    key(b, k);
    cs_buf_printf(b, "null");
}
