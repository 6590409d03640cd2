/* json.h - a growable text buffer and a writer for flat JSON objects (json.c). */
#ifndef CIPHERSWEEP_JSON_H
#define CIPHERSWEEP_JSON_H

#include <stddef.h>

typedef struct {
    char *p;
    size_t len, cap;
    int first;                /* no field written yet in the current object */
} cs_buf;

void cs_buf_free(cs_buf *b);
void cs_buf_printf(cs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cs_json_begin(cs_buf *b);
void cs_json_end(cs_buf *b); /* "}\n" */
void cs_json_str(cs_buf *b, const char *key, const char *val); /* NULL -> null */
void cs_json_int(cs_buf *b, const char *key, long long val);
void cs_json_num(cs_buf *b, const char *key, double val);     /* NAN/inf -> null */
void cs_json_bool(cs_buf *b, const char *key, int val);
void cs_json_null(cs_buf *b, const char *key);
void cs_json_escape(cs_buf *b, const char *s);

#endif
