/* Binary DRUP (the binary encoding of DRAT, without RAT) into flat int32
 * arrays, resumable: the stream comes in chunks cut anywhere.
 *
 * Header-only (static inline), used by _parse_c.pyx's BinaryDrupStream.  The
 * pure-Python twin is _parse_py.BinaryDrupStream: both read the same bytes
 * into the same arrays and report the same first error (code, byte offset,
 * offending bytes, value), however the stream is cut.  The encoding:
 *
 *   - a step is a byte 'a' (0x61, an addition) or 'd' (0x64, a deletion),
 *     then its literals, then the integer 0; any other byte where a step
 *     starts is SCC_ERR_TOKEN (where: that byte; token: that byte);
 *   - each integer is an unsigned LEB128 number u (7 bits a byte, lowest
 *     first, the high bit set on every byte but the last): u = 0 ends the
 *     step, u = 2|l| + (l < 0) is the literal l;
 *   - u = 1 (a "-0") is no literal and no end: SCC_ERR_TOKEN (where: its first
 *     byte; token: its bytes; value: 1);
 *   - an integer has 5 bytes at most (35 bits; redundant zero groups within
 *     them are accepted, as drat-trim does), and u <= 2^32 - 1, so that
 *     |l| <= 2^31 - 1 as in DIMACS text: a sixth byte, or a larger value, is
 *     SCC_ERR_INT_RANGE (where: the integer's first byte; token: its first 5
 *     bytes; value: u as read from them);
 *   - the end of the stream inside a step is SCC_ERR_UNTERMINATED (where:
 *     the step's 'a' or 'd' byte);
 *   - a byte 'c' or 's' where a step starts opens a line of text, skipped up
 *     to and with its '\n' (or the end): a solver writing its proof to
 *     standard output puts its comments and status line between the steps.
 *     n_comment / n_status count them; comment_where / status_where are the
 *     first one's stream offset, comment_at / status_at its offset in the
 *     data of the call that met it (-1 in other calls).
 *
 * Offsets ("where") are 0-based, in bytes from the start of the whole stream.
 * The state between chunks is the open step (its kind, start and literals so
 * far) and a partial integer (its bytes so far), so memory is the arrays of
 * one chunk plus the open step.
 */
#ifndef SCC_BINARY_SCAN_H
#define SCC_BINARY_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dimacs_scan.h"        /* scc_grow */

/* The same numbers as _codes.SCAN_* (and dimacs_scan.h's SCC_*). */
#define SCC_BIN_OK 0
#define SCC_BIN_ERR_TOKEN 1
#define SCC_BIN_ERR_INT_RANGE 2
#define SCC_BIN_ERR_UNTERMINATED 7

#define SCC_BIN_MAX_INT_BYTES 5
#define SCC_BIN_MAX_U 0xFFFFFFFFULL

typedef struct {
    /* The steps completed in this call, then the open step's literals:
     * offsets has one entry per completed step plus offsets[0] == 0, and the
     * open step's literals are lits[offsets[n_offsets - 1] : n_lits]. */
    int32_t *lits;
    size_t n_lits, cap_lits;
    int32_t *offsets;
    size_t n_offsets, cap_offsets;
    int8_t *kinds;
    size_t n_kinds, cap_kinds;
    int64_t *starts;        /* stream offset of each completed step's 'a'/'d' */
    size_t n_starts, cap_starts;
    int64_t pos;            /* stream offset of the next byte */
    int open;               /* 1 inside a step */
    int8_t kind;            /* the open step's kind: 0 add, 1 delete */
    int64_t step_start;     /* stream offset of the open step's 'a'/'d' */
    uint64_t acc;           /* the partial integer's value so far */
    int n_int;              /* its bytes so far, 0: none */
    int64_t int_start;      /* stream offset of its first byte */
    unsigned char int_bytes[SCC_BIN_MAX_INT_BYTES];
    int code;               /* SCC_BIN_OK or SCC_BIN_ERR_* */
    int64_t where;          /* the error's byte offset */
    unsigned char token[SCC_BIN_MAX_INT_BYTES];
    int token_len;          /* -1: no token */
    int64_t value;
    int in_text;            /* inside a comment or status line */
    int64_t n_comment, comment_where, comment_at;
    int64_t n_status, status_where, status_at;
} scc_bin_t;

static inline void scc_bin_init(scc_bin_t *s) {
    memset(s, 0, sizeof(*s));
    s->token_len = -1;
    s->comment_at = -1;
    s->status_at = -1;
}

static inline void scc_bin_free(scc_bin_t *s) {
    free(s->lits); free(s->offsets); free(s->kinds); free(s->starts);
    s->lits = NULL; s->offsets = NULL; s->kinds = NULL; s->starts = NULL;
}

/* Forget the steps handed out by the last call, keep the open step's
 * literals (moved to the front).  Returns 0, or -1 when memory ran out. */
static inline int scc_bin_next(scc_bin_t *s) {
    size_t start = s->n_offsets ? (size_t)s->offsets[s->n_offsets - 1] : 0;
    if (start) {
        memmove(s->lits, s->lits + start, (s->n_lits - start) * sizeof(int32_t));
        s->n_lits -= start;
    }
    if (scc_grow((void **)&s->offsets, &s->cap_offsets, 1, sizeof(int32_t))) return -1;
    s->offsets[0] = 0;
    s->n_offsets = 1;
    s->n_kinds = 0;
    s->n_starts = 0;
    return 0;
}

static inline int scc_bin_fail(scc_bin_t *s, int code, int64_t where,
                               const unsigned char *token, int token_len, int64_t value) {
    s->code = code;
    s->where = where;
    s->token_len = token_len;
    if (token_len > 0) memcpy(s->token, token, (size_t)token_len);
    s->value = value;
    return 0;
}

/* Scan data[0:n], the next bytes of the stream; final: no more follow.
 * Returns 0 when done (s->code tells whether the bytes were well formed), or
 * -1 when memory ran out.  Call scc_bin_next() before each call but the
 * first, after taking the completed steps. */
static inline int scc_bin_scan(scc_bin_t *s, const unsigned char *data, size_t n, int final) {
    size_t i = 0;
    int64_t base = s->pos;
    const unsigned char *nl;
    s->comment_at = -1;
    s->status_at = -1;
    if (s->in_text) {                           /* a line of text goes on */
        nl = n ? memchr(data, '\n', n) : NULL;
        if (nl == NULL) i = n;
        else { i = (size_t)(nl - data) + 1; s->in_text = 0; }
    }
    while (i < n) {
        unsigned char b = data[i];
        if (!s->open) {
            if (b == 'c' || b == 's') {         /* a line of text between steps */
                if (b == 'c' && s->n_comment++ == 0) {
                    s->comment_where = base + (int64_t)i;
                    s->comment_at = (int64_t)i;
                }
                if (b == 's' && s->n_status++ == 0) {
                    s->status_where = base + (int64_t)i;
                    s->status_at = (int64_t)i;
                }
                nl = memchr(data + i, '\n', n - i);
                if (nl == NULL) { s->in_text = 1; i = n; }
                else i = (size_t)(nl - data) + 1;
                continue;
            }
            if (b != 'a' && b != 'd')
                return scc_bin_fail(s, SCC_BIN_ERR_TOKEN, base + (int64_t)i, &b, 1, 0);
            s->open = 1;
            s->kind = (int8_t)(b == 'd');
            s->step_start = base + (int64_t)i;
            i++;
            continue;
        }
        if (s->n_int == 0) {
            if (b >= 2 && b < 0x80) {           /* the common case: a one-byte literal */
                if (s->n_lits == s->cap_lits
                    && scc_grow((void **)&s->lits, &s->cap_lits, s->n_lits + 1,
                                    sizeof(int32_t)))
                    return -1;
                s->lits[s->n_lits++] = (b & 1) ? -(int32_t)(b >> 1) : (int32_t)(b >> 1);
                i++;
                continue;
            }
            s->int_start = base + (int64_t)i;
        }
        s->int_bytes[s->n_int] = b;
        s->acc |= (uint64_t)(b & 0x7f) << (7 * s->n_int);
        s->n_int++;
        i++;
        if (b & 0x80) {
            if (s->n_int == SCC_BIN_MAX_INT_BYTES)
                return scc_bin_fail(s, SCC_BIN_ERR_INT_RANGE, s->int_start, s->int_bytes,
                                    s->n_int, (int64_t)s->acc);
            continue;
        }
        {
            uint64_t u = s->acc;
            int len = s->n_int;
            s->acc = 0;
            s->n_int = 0;
            if (u > SCC_BIN_MAX_U)
                return scc_bin_fail(s, SCC_BIN_ERR_INT_RANGE, s->int_start, s->int_bytes,
                                    len, (int64_t)u);
            if (u == 1)
                return scc_bin_fail(s, SCC_BIN_ERR_TOKEN, s->int_start, s->int_bytes, len, 1);
            if (u == 0) {                        /* the end of the step */
                if (s->n_lits > (size_t)INT32_MAX) return -1;   /* offsets are int32 */
                if (scc_grow((void **)&s->offsets, &s->cap_offsets, s->n_offsets + 1,
                                 sizeof(int32_t))
                    || scc_grow((void **)&s->kinds, &s->cap_kinds, s->n_kinds + 1, 1)
                    || scc_grow((void **)&s->starts, &s->cap_starts, s->n_starts + 1,
                                    sizeof(int64_t)))
                    return -1;
                s->offsets[s->n_offsets++] = (int32_t)s->n_lits;
                s->kinds[s->n_kinds++] = s->kind;
                s->starts[s->n_starts++] = s->step_start;
                s->open = 0;
                continue;
            }
            if (s->n_lits == s->cap_lits
                && scc_grow((void **)&s->lits, &s->cap_lits, s->n_lits + 1, sizeof(int32_t)))
                return -1;
            s->lits[s->n_lits++] = (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
        }
    }
    s->pos = base + (int64_t)n;
    if (final && s->open)
        return scc_bin_fail(s, SCC_BIN_ERR_UNTERMINATED, s->step_start, NULL, -1, 0);
    s->where = s->pos;
    return 0;
}

#endif /* SCC_BINARY_SCAN_H */
