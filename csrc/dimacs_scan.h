/* DIMACS CNF and DRUP text straight into flat int32 arrays.
 *
 * Header-only (static inline), used by _parse_c.pyx.  The pure-Python twin is
 * _parse_py.py: both read the same language and report the same first error
 * (code, 1-based line, offending token or value), so the two are
 * interchangeable.  The language, line by line:
 *
 *   - blank lines are skipped; a line whose first token starts with 'c' is a
 *     comment (anywhere, also inside a clause that spans lines);
 *   - DRUP: a line whose first token is "s" is a solver's status line
 *     ("s UNSATISFIABLE", written to the same pipe as the proof), skipped as a
 *     comment is; n_status counts them, status_line is the first one's line
 *     and status_at its byte offset in the part that held it (-1 in others);
 *   - CNF: "p cnf V C" once, before any literal; a line whose first token
 *     starts with '%' ends the formula (SATLIB files); every literal is a
 *     non-zero integer with |l| <= V; exactly C clauses;
 *   - DRUP: an optional "d" token opens a delete step, before its literals;
 *   - a step (clause) is a run of integers ended by 0 and may span lines; the
 *     end of the text inside a step is an error.
 *
 * Tokens are separated by the ASCII whitespace of Python's bytes.split()
 * (space, \t, \n, \r, \v, \f); lines are counted on '\n'.  An integer token is
 * -?[0-9]+ with |value| <= 2^31 - 1 (leading zeros allowed: any length).
 *
 * Stop limits (each -1 for none) end the scan early with SCC_STOPPED, so that
 * no array grows past what the request limits allow: a CNF header with
 * V > max_vars or C > max_steps stops at the header (arrays empty); the
 * literal that takes the count past max_lits stops the scan, its step closed
 * as it is; in DRUP, the step that takes the count past max_steps stops it.
 * The arrays then hold what was read up to there.
 *
 * A text (DRUP or CNF) may also be scanned in parts, as it arrives: the state
 * between tokens (line number, line start, inside a comment, the open step and
 * its 'd', the header) stays in scc_scan_t from one call to the next, with
 * final = 0 for every part but the last.  Each part must end right after a
 * whitespace byte (a token is never cut), and a "p" line must not be cut.
 * scc_scan_rest() then drops the steps the caller has taken, keeping the open
 * step's literals for the next part (the counts of the steps and literals
 * dropped stay, for the stop limits and the clause count).  With
 * want_lines set, lines[] gets the line where each step starts.
 */
#ifndef SCC_DIMACS_SCAN_H
#define SCC_DIMACS_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Error codes: the same numbers as _codes.SCAN_*. */
#define SCC_OK 0
#define SCC_ERR_TOKEN 1          /* not an integer (or a misplaced 'd' / 'p') */
#define SCC_ERR_INT_RANGE 2      /* an integer beyond 32 bits */
#define SCC_ERR_VAR_RANGE 3      /* a CNF literal above the header's V */
#define SCC_ERR_NO_HEADER 4      /* a literal before "p cnf", or no header at all */
#define SCC_ERR_BAD_HEADER 5     /* a "p" line that is not "p cnf V C" */
#define SCC_ERR_SECOND_HEADER 6  /* a second "p" line */
#define SCC_ERR_UNTERMINATED 7   /* the text ends inside a step */
#define SCC_ERR_CLAUSE_COUNT 8   /* number of clauses differs from the header */
#define SCC_STOPPED 9            /* a stop limit was passed (not an error of the text) */

#define SCC_INT32_MAX 2147483647LL

typedef struct {
    int32_t *lits;          /* literals of every step, in order */
    size_t n_lits, cap_lits;
    int32_t *offsets;       /* n_steps + 1 entries, offsets[0] == 0 */
    size_t n_offsets, cap_offsets;
    int8_t *kinds;          /* DRUP only: 0 add, 1 delete, one per step */
    size_t n_kinds, cap_kinds;
    int64_t num_vars;       /* CNF header V, -1 before the header */
    int64_t num_clauses;    /* CNF header C, -1 before the header */
    int64_t header_line;
    int code;               /* SCC_OK or SCC_ERR_* */
    int64_t line;           /* 1-based line of the error */
    size_t tok_start, tok_stop;  /* the offending token, when there is one */
    int has_token;
    int64_t value;          /* the offending value, or the clause count */
    /* Where the scan stands between parts of a text scanned in parts. */
    int64_t at_line;        /* the current line */
    int at_line_start;      /* no token yet on the current line */
    int in_comment;         /* the current line is a comment */
    int delete_open;        /* the open step started with 'd' */
    int64_t open_line;      /* line where the open step started; 0: none open */
    int want_lines;         /* DRUP: record each step's first line in lines */
    int64_t *lines;
    size_t n_lines, cap_lines;
    int64_t n_status;       /* DRUP: status lines skipped so far */
    int64_t status_line;    /* the first one's line */
    int64_t status_at;      /* its offset in the last part scanned, -1: not there */
    /* Steps and literals of the parts before (dropped by scc_scan_rest): the
     * stop limits and the CNF's clause count are on the whole text. */
    int64_t steps_before, lits_before;
    int at_end;             /* CNF: a '%' line ended the formula; the rest is not read */
} scc_scan_t;

/* 1 for the ASCII whitespace of bytes.split(): \t \n \v \f \r and space. */
static const unsigned char scc_space_table[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1,
};

static inline int scc_is_space(unsigned char c) {
    return scc_space_table[c];
}

/* Grow *buf to hold at least need items of size elem.  Returns 0, or -1 when
 * the size overflows or realloc fails (the old buffer stays owned by s). */
static inline int scc_grow(void **buf, size_t *cap, size_t need, size_t elem) {
    size_t cap2;
    void *p;
    if (need <= *cap) return 0;
    cap2 = *cap ? *cap : 1024;
    while (cap2 < need) {
        if (cap2 > ((size_t)-1) / 2 / elem) return -1;
        cap2 *= 2;
    }
    p = realloc(*buf, cap2 * elem);
    if (p == NULL) return -1;
    *buf = p;
    *cap = cap2;
    return 0;
}

static inline void scc_scan_init(scc_scan_t *s) {
    s->lits = NULL; s->n_lits = 0; s->cap_lits = 0;
    s->offsets = NULL; s->n_offsets = 0; s->cap_offsets = 0;
    s->kinds = NULL; s->n_kinds = 0; s->cap_kinds = 0;
    s->num_vars = -1; s->num_clauses = -1; s->header_line = 0;
    s->code = SCC_OK; s->line = 0; s->tok_start = 0; s->tok_stop = 0;
    s->has_token = 0; s->value = 0;
    s->at_line = 1; s->at_line_start = 1; s->in_comment = 0;
    s->delete_open = 0; s->open_line = 0;
    s->want_lines = 0; s->lines = NULL; s->n_lines = 0; s->cap_lines = 0;
    s->n_status = 0; s->status_line = 0; s->status_at = -1;
    s->steps_before = 0; s->lits_before = 0; s->at_end = 0;
}

/* After a part: forget the steps completed so far (the caller has copied
 * them), keeping the literals of the open step at the front. */
static inline void scc_scan_rest(scc_scan_t *s) {
    size_t done = (size_t)s->offsets[s->n_offsets - 1];
    size_t open = s->n_lits - done;
    size_t i;
    s->steps_before += (int64_t)(s->n_offsets - 1);
    s->lits_before += (int64_t)done;
    /* Only after a step closed: an open step spanning many parts is not
     * copied onto itself part after part (quadratic in its length). */
    if (done) for (i = 0; i < open; i++) s->lits[i] = s->lits[done + i];
    s->n_lits = open;
    s->n_offsets = 1;
    s->n_kinds = 0;
    s->n_lines = 0;
}

static inline void scc_scan_free(scc_scan_t *s) {
    free(s->lits); free(s->offsets); free(s->kinds); free(s->lines);
    s->lits = NULL; s->offsets = NULL; s->kinds = NULL; s->lines = NULL;
}

static inline int scc_fail(scc_scan_t *s, int code, int64_t line,
                           size_t start, size_t stop, int has_token, int64_t value) {
    s->code = code; s->line = line; s->tok_start = start; s->tok_stop = stop;
    s->has_token = has_token; s->value = value;
    return 0;
}

/* Parse [p, q) as -?[0-9]+.  Returns 1 and sets *out (clamped to
 * SCC_INT32_MAX + 1 in magnitude) for an integer token, else 0. */
static inline int scc_integer(const unsigned char *p, const unsigned char *q, int64_t *out) {
    int neg = 0;
    int64_t v = 0;
    if (p < q && *p == '-') { neg = 1; p++; }
    if (p == q) return 0;
    for (; p < q; p++) {
        unsigned d = (unsigned)(*p) - '0';
        if (d > 9) return 0;
        if (v <= SCC_INT32_MAX) v = v * 10 + d;   /* stops growing past 2^31 */
    }
    *out = neg ? -v : v;
    return 1;
}

static inline int scc_push_step(scc_scan_t *s, int is_cnf, int delete) {
    if (s->n_lits > (size_t)SCC_INT32_MAX) return -1;   /* offsets are int32 */
    if (scc_grow((void **)&s->offsets, &s->cap_offsets, s->n_offsets + 1, sizeof(int32_t)))
        return -1;
    s->offsets[s->n_offsets++] = (int32_t)s->n_lits;
    if (!is_cnf) {
        if (scc_grow((void **)&s->kinds, &s->cap_kinds, s->n_kinds + 1, 1)) return -1;
        s->kinds[s->n_kinds++] = (int8_t)delete;
    }
    return 0;
}

/* The "p" line starting at data[start]: "p cnf V C" and nothing else. */
static inline int scc_header(scc_scan_t *s, const unsigned char *data, size_t n,
                             size_t start, size_t *pos, int64_t line) {
    size_t ts[4], te[4];
    size_t i = *pos, last = *pos;
    int count = 0;
    int64_t v = 0, c = 0;
    while (i < n && data[i] != '\n') {
        if (scc_is_space(data[i])) { i++; continue; }
        if (count < 4) ts[count] = i;
        while (i < n && !scc_is_space(data[i])) i++;
        if (count < 4) te[count] = i;
        count++;
        last = i;
    }
    *pos = i;
    if (count != 3 || te[0] - ts[0] != 3 || data[ts[0]] != 'c' || data[ts[0] + 1] != 'n'
        || data[ts[0] + 2] != 'f'
        || data[ts[1]] == '-' || !scc_integer(data + ts[1], data + te[1], &v) || v > SCC_INT32_MAX
        || data[ts[2]] == '-' || !scc_integer(data + ts[2], data + te[2], &c) || c > SCC_INT32_MAX)
        return scc_fail(s, SCC_ERR_BAD_HEADER, line, start, last, 1, 0);
    s->num_vars = v;
    s->num_clauses = c;
    s->header_line = line;
    return 1;
}

/* Scan data[0:n], the whole text (final = 1) or its next part (final = 0).
 * Returns 0 when done (s->code tells whether the text was well formed, or
 * SCC_STOPPED), or -1 when memory ran out (the arrays stay owned by s). */
static inline int scc_scan(scc_scan_t *s, const unsigned char *data, size_t n, int is_cnf,
                           int64_t max_vars, int64_t max_steps, int64_t max_lits,
                           int final) {
    size_t pos = 0, start;
    int64_t line = s->at_line, open_line = s->open_line, v;
    int at_line_start = s->at_line_start, delete = s->delete_open, r;
    int64_t bound = is_cnf ? s->num_vars : SCC_INT32_MAX;   /* -1 before the header */

    if (s->n_offsets == 0 && scc_push_step(s, 1, 0)) return -1;    /* offsets[0] = 0 */
    s->status_at = -1;
    if (s->at_end) pos = n;                        /* after a '%' line: nothing more */
    else if (s->in_comment) {                           /* a comment line goes on */
        while (pos < n && data[pos] != '\n') pos++;
        s->in_comment = pos == n;
    }
    while (pos < n) {
        unsigned char ch = data[pos];
        if (ch == '\n') { line++; at_line_start = 1; pos++; continue; }
        if (scc_is_space(ch)) { pos++; continue; }
        start = pos;
        while (pos < n && !scc_is_space(data[pos])) pos++;
        if (at_line_start) {
            at_line_start = 0;
            if (ch == 'c' || (!is_cnf && ch == 's' && pos - start == 1)) {
                if (ch == 's' && s->n_status++ == 0) {  /* status line: noted once */
                    s->status_line = line;
                    s->status_at = (int64_t)start;
                }
                while (pos < n && data[pos] != '\n') pos++;
                s->in_comment = pos == n;
                continue;
            }
            if (is_cnf && ch == '%') {             /* SATLIB end marker */
                s->at_end = 1;
                break;
            }
            if (is_cnf && ch == 'p' && pos - start == 1) {
                if (s->num_vars >= 0)
                    return scc_fail(s, SCC_ERR_SECOND_HEADER, line, 0, 0, 0, 0);
                r = scc_header(s, data, n, start, &pos, line);
                if (r <= 0) return r;
                bound = s->num_vars;
                if ((max_vars >= 0 && s->num_vars > max_vars)
                    || (max_steps >= 0 && s->num_clauses > max_steps))
                    return scc_fail(s, SCC_STOPPED, line, 0, 0, 0, 0);
                continue;
            }
        }
        if (!is_cnf && ch == 'd' && pos - start == 1) {
            if (open_line) return scc_fail(s, SCC_ERR_TOKEN, line, start, pos, 1, 0);
            delete = 1;
            open_line = line;
            continue;
        }
        if (!scc_integer(data + start, data + pos, &v))
            return scc_fail(s, SCC_ERR_TOKEN, line, start, pos, 1, 0);
        if (v > SCC_INT32_MAX || v < -SCC_INT32_MAX)
            return scc_fail(s, SCC_ERR_INT_RANGE, line, start, pos, 1, 0);
        if (is_cnf) {
            if (s->num_vars < 0) return scc_fail(s, SCC_ERR_NO_HEADER, line, start, pos, 1, 0);
            if (v > bound || v < -bound)
                return scc_fail(s, SCC_ERR_VAR_RANGE, line, start, pos, 1, v);
        }
        if (v == 0) {
            if (s->want_lines) {
                if (scc_grow((void **)&s->lines, &s->cap_lines, s->n_lines + 1,
                             sizeof(int64_t)))
                    return -1;
                s->lines[s->n_lines++] = open_line ? open_line : line;
            }
            if (scc_push_step(s, is_cnf, delete)) return -1;
            delete = 0;
            open_line = 0;
            if (!is_cnf && max_steps >= 0
                && s->steps_before + (int64_t)(s->n_offsets - 1) > max_steps)
                return scc_fail(s, SCC_STOPPED, line, 0, 0, 0, 0);
        } else {
            if (!open_line) open_line = line;
            if (s->n_lits == s->cap_lits
                && scc_grow((void **)&s->lits, &s->cap_lits, s->n_lits + 1, sizeof(int32_t)))
                return -1;
            s->lits[s->n_lits++] = (int32_t)v;
            if (max_lits >= 0 && s->lits_before + (int64_t)s->n_lits > max_lits) {
                if (scc_push_step(s, is_cnf, delete)) return -1;   /* close it as it is */
                return scc_fail(s, SCC_STOPPED, line, 0, 0, 0, 0);
            }
        }
    }
    s->at_line = line; s->at_line_start = at_line_start;
    s->delete_open = delete; s->open_line = open_line;
    if (!final) return 0;
    if (open_line) return scc_fail(s, SCC_ERR_UNTERMINATED, open_line, 0, 0, 0, 0);
    if (is_cnf) {
        if (s->num_vars < 0) return scc_fail(s, SCC_ERR_NO_HEADER, 1, 0, 0, 0, 0);
        if (s->steps_before + (int64_t)(s->n_offsets - 1) != s->num_clauses)
            return scc_fail(s, SCC_ERR_CLAUSE_COUNT, s->header_line, 0, 0, 0,
                            s->steps_before + (int64_t)(s->n_offsets - 1));
    }
    return 0;
}

#endif /* SCC_DIMACS_SCAN_H */
