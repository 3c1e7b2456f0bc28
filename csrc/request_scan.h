/* Request JSON text straight into the engines' flat int32 arrays, validated
 * in the same pass.
 *
 * Header-only (static inline), used by _request_c.pyx, which runs rq_read
 * without the GIL over the bytes as given.  It reads only the common case of
 * a request: it answers RQ_ACCEPT with exactly the arrays that
 * _validate.validate(_jsontext.loads(text), limits) builds, or RQ_DECLINE as
 * soon as anything is not that case.  The caller then takes the exact path
 * (json.loads + validate), which finds the first error, or reads what this
 * reader leaves to it (escapes, 3.0, a byte-order mark...).  Every error
 * declines, so the order of the validation rules never matters here: only
 * "accepted => the same arrays" does.
 *
 * The common case, in full:
 *   - ASCII only; JSON whitespace (space, \t, \n, \r) anywhere between tokens;
 *   - one object with keys among "cnf", "claim", "assignment", "proof", each
 *     at most once, in any order; a sat claim has an assignment and no
 *     proof, an unsat claim a proof and no assignment;
 *   - cnf: {"num_vars": N, "clauses": [[l, ...], ...]}, each key once, in any
 *     order, 0 <= N <= max_vars, every CNF literal 1 <= |l| <= N;
 *   - claim: "sat" or "unsat";
 *   - assignment: [a, ...] with |a| <= max_vars;
 *   - proof: [{"add": [l, ...]} or {"delete": [l, ...]}, ...], |l| <= max_vars;
 *   - integers -?(0|[1-9][0-9]*), at most 10 digits, with no fraction or
 *     exponent; strings are exactly the names above, without escapes;
 *   - every size limit respected.
 * A proof literal 0 or beyond N is a verdict, not an error: its step gets the
 * out-of-range kind, as _convert_*.mark_out_of_range gives it.
 */
#ifndef SCC_REQUEST_SCAN_H
#define SCC_REQUEST_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RQ_ACCEPT 1
#define RQ_DECLINE 0
#define RQ_NOMEM (-1)

#define RQ_SAT 1
#define RQ_UNSAT 2

typedef struct {
    int32_t *v;
    size_t n, cap;
} rq_ints;

typedef struct {
    int8_t *v;
    size_t n, cap;
} rq_bytes;

typedef struct {
    /* In: the size limits (each 0 .. 2^31 - 2), and _codes' step kinds. */
    int64_t max_vars, max_clauses, max_total_literals, max_assignment_literals,
            max_proof_steps, max_proof_literals;
    int8_t kind_add, kind_delete, kind_add_out, kind_delete_out;
    /* Out, on RQ_ACCEPT: offsets have one entry per clause (step) plus the end. */
    int claim;                          /* RQ_SAT or RQ_UNSAT */
    int64_t num_vars;
    rq_ints clause_offsets, clause_lits;
    rq_ints assignment;                 /* a sat claim */
    rq_bytes step_kinds;                /* an unsat claim */
    rq_ints step_offsets, step_lits;
    /* The cursor. */
    const unsigned char *p, *end;
} rq_read_t;

static inline void rq_init(rq_read_t *r) {
    memset(r, 0, sizeof(*r));
}

static inline void rq_free(rq_read_t *r) {
    free(r->clause_offsets.v); free(r->clause_lits.v); free(r->assignment.v);
    free(r->step_kinds.v); free(r->step_offsets.v); free(r->step_lits.v);
    r->clause_offsets.v = NULL; r->clause_lits.v = NULL; r->assignment.v = NULL;
    r->step_kinds.v = NULL; r->step_offsets.v = NULL; r->step_lits.v = NULL;
}

/* Double *cap (from 256), keeping *buf's items.  RQ_ACCEPT or RQ_NOMEM. */
static inline int rq_grow(void **buf, size_t *cap, size_t elem) {
    size_t cap2 = *cap ? *cap : 128;
    void *q;
    if (cap2 > ((size_t)-1) / 2 / elem) return RQ_NOMEM;
    cap2 *= 2;
    q = realloc(*buf, cap2 * elem);
    if (q == NULL) return RQ_NOMEM;
    *buf = q;
    *cap = cap2;
    return RQ_ACCEPT;
}

static inline int rq_push(rq_ints *b, int32_t x) {
    if (b->n == b->cap && rq_grow((void **)&b->v, &b->cap, sizeof(int32_t)) != RQ_ACCEPT)
        return RQ_NOMEM;
    b->v[b->n++] = x;
    return RQ_ACCEPT;
}

static inline int rq_push_kind(rq_bytes *b, int8_t x) {
    if (b->n == b->cap && rq_grow((void **)&b->v, &b->cap, 1) != RQ_ACCEPT)
        return RQ_NOMEM;
    b->v[b->n++] = x;
    return RQ_ACCEPT;
}

/* Skip JSON whitespace: exactly the four characters json.loads skips. */
static inline void rq_ws(rq_read_t *r) {
    const unsigned char *p = r->p, *e = r->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    r->p = p;
}

/* Whitespace, then c: consume it and return 1, else 0 (nothing consumed). */
static inline int rq_eat(rq_read_t *r, unsigned char c) {
    rq_ws(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return 1;
    }
    return 0;
}

/* Whitespace, then one of names[0..count) in double quotes, byte for byte:
 * its index, or -1 (any other string, an escape, no string at all). */
static inline int rq_name(rq_read_t *r, const char *const *names, int count) {
    const unsigned char *q;
    size_t len, left;
    int i;
    rq_ws(r);
    if (r->p >= r->end || *r->p != '"') return -1;
    q = r->p + 1;
    left = (size_t)(r->end - q);
    for (i = 0; i < count; i++) {
        len = strlen(names[i]);
        if (left > len && memcmp(q, names[i], len) == 0 && q[len] == '"') {
            r->p = q + len + 1;
            return i;
        }
    }
    return -1;
}

/* An object key among names, and its colon: the key's index, or -1. */
static inline int rq_key(rq_read_t *r, const char *const *names, int count) {
    int k = rq_name(r, names, count);
    return (k >= 0 && rq_eat(r, ':')) ? k : -1;
}

/* Whitespace, then an integer -?(0|[1-9][0-9]*) of at most 10 digits (so
 * int64 holds it) not followed by a digit, '.', 'e' or 'E' (a fraction or an
 * exponent makes a double: the exact path reads those).  1 and *out, or 0. */
static inline int rq_int(rq_read_t *r, int64_t *out) {
    const unsigned char *p, *digits, *e = r->end;
    int64_t v = 0;
    int neg;
    rq_ws(r);
    p = r->p;
    neg = p < e && *p == '-';
    p += neg;                       /* no branch: signs are random (a third faster) */
    digits = p;
    if (p < e && *p == '0') {
        p++;
    } else {
        while (p < e && (unsigned)(*p - '0') <= 9u) {
            if (p - digits == 10) return 0;
            v = v * 10 + (*p - '0');
            p++;
        }
        if (p == digits) return 0;
    }
    if (p < e && ((unsigned)(*p - '0') <= 9u || *p == '.' || *p == 'e' || *p == 'E'))
        return 0;
    r->p = p;
    *out = neg ? -v : v;
    return 1;
}

/* An array of integers appended to out: each |l| <= bound (and l != 0
 * unless zero_ok), out->n staying <= max_total. */
static inline int rq_lits(rq_read_t *r, rq_ints *out, int64_t bound, int zero_ok,
                          int64_t max_total) {
    int64_t v;
    if (!rq_eat(r, '[')) return RQ_DECLINE;
    if (rq_eat(r, ']')) return RQ_ACCEPT;
    do {
        if (!rq_int(r, &v) || v > bound || v < -bound || (v == 0 && !zero_ok))
            return RQ_DECLINE;
        if ((int64_t)out->n >= max_total) return RQ_DECLINE;
        if (rq_push(out, (int32_t)v) != RQ_ACCEPT) return RQ_NOMEM;
    } while (rq_eat(r, ','));
    return rq_eat(r, ']') ? RQ_ACCEPT : RQ_DECLINE;
}

/* cnf.clauses.  Literals are checked against max_vars here, and against
 * num_vars (which may come later in the text) by rq_finish. */
static inline int rq_clauses(rq_read_t *r) {
    int rc;
    if (!rq_eat(r, '[')) return RQ_DECLINE;
    if (rq_eat(r, ']')) return RQ_ACCEPT;
    do {
        if ((int64_t)r->clause_offsets.n >= r->max_clauses) return RQ_DECLINE;
        if (rq_push(&r->clause_offsets, (int32_t)r->clause_lits.n) != RQ_ACCEPT)
            return RQ_NOMEM;
        rc = rq_lits(r, &r->clause_lits, r->max_vars, 0, r->max_total_literals);
        if (rc != RQ_ACCEPT) return rc;
    } while (rq_eat(r, ','));
    return rq_eat(r, ']') ? RQ_ACCEPT : RQ_DECLINE;
}

static const char *const rq_cnf_keys[] = {"num_vars", "clauses"};

static inline int rq_cnf(rq_read_t *r) {
    int seen = 0, k, rc;
    int64_t v;
    if (!rq_eat(r, '{')) return RQ_DECLINE;
    do {
        k = rq_key(r, rq_cnf_keys, 2);
        if (k < 0 || (seen & (1 << k))) return RQ_DECLINE;     /* unknown or repeated */
        seen |= 1 << k;
        if (k == 0) {
            if (!rq_int(r, &v) || v < 0 || v > r->max_vars) return RQ_DECLINE;
            r->num_vars = v;
        } else if ((rc = rq_clauses(r)) != RQ_ACCEPT) {
            return rc;
        }
    } while (rq_eat(r, ','));
    return (seen == 3 && rq_eat(r, '}')) ? RQ_ACCEPT : RQ_DECLINE;
}

static const char *const rq_step_keys[] = {"add", "delete"};

static inline int rq_proof(rq_read_t *r) {
    int k, rc;
    if (!rq_eat(r, '[')) return RQ_DECLINE;
    if (rq_eat(r, ']')) return RQ_ACCEPT;
    do {
        if ((int64_t)r->step_kinds.n >= r->max_proof_steps) return RQ_DECLINE;
        if (!rq_eat(r, '{')) return RQ_DECLINE;
        k = rq_key(r, rq_step_keys, 2);
        if (k < 0) return RQ_DECLINE;
        if (rq_push_kind(&r->step_kinds, k == 0 ? r->kind_add : r->kind_delete) != RQ_ACCEPT
            || rq_push(&r->step_offsets, (int32_t)r->step_lits.n) != RQ_ACCEPT)
            return RQ_NOMEM;
        rc = rq_lits(r, &r->step_lits, r->max_vars, 1, r->max_proof_literals);
        if (rc != RQ_ACCEPT) return rc;
        if (!rq_eat(r, '}')) return RQ_DECLINE;     /* a second key, or no object end */
    } while (rq_eat(r, ','));
    return rq_eat(r, ']') ? RQ_ACCEPT : RQ_DECLINE;
}

/* What needs num_vars: the CNF literals' range, and the out-of-range kinds. */
static inline int rq_finish(rq_read_t *r) {
    const int64_t nv = r->num_vars;
    size_t i, s;
    for (i = 0; i < r->clause_lits.n; i++) {
        if (r->clause_lits.v[i] > nv || r->clause_lits.v[i] < -nv) return RQ_DECLINE;
    }
    if (rq_push(&r->clause_offsets, (int32_t)r->clause_lits.n) != RQ_ACCEPT) return RQ_NOMEM;
    if (r->claim != RQ_UNSAT) return RQ_ACCEPT;
    if (rq_push(&r->step_offsets, (int32_t)r->step_lits.n) != RQ_ACCEPT) return RQ_NOMEM;
    for (s = 0; s < r->step_kinds.n; s++) {
        for (i = (size_t)r->step_offsets.v[s]; i < (size_t)r->step_offsets.v[s + 1]; i++) {
            int32_t lit = r->step_lits.v[i];
            if (lit == 0 || lit > nv || lit < -nv) {
                r->step_kinds.v[s] = r->step_kinds.v[s] == r->kind_add
                    ? r->kind_add_out : r->kind_delete_out;
                break;
            }
        }
    }
    return RQ_ACCEPT;
}

static const char *const rq_request_keys[] = {"cnf", "claim", "assignment", "proof"};
static const char *const rq_claims[] = {"sat", "unsat"};

/* Read data[0:n]: RQ_ACCEPT (the arrays are filled), RQ_DECLINE, or RQ_NOMEM.
 * Whatever the answer, the buffers stay owned by r (rq_free). */
static inline int rq_read(rq_read_t *r, const unsigned char *data, size_t n) {
    int seen = 0, k, claim, rc;
    if (n == 0) return RQ_DECLINE;
    r->p = data;
    r->end = data + n;
    if (!rq_eat(r, '{')) return RQ_DECLINE;
    do {
        k = rq_key(r, rq_request_keys, 4);
        if (k < 0 || (seen & (1 << k))) return RQ_DECLINE;     /* unknown or repeated */
        seen |= 1 << k;
        switch (k) {
        case 0:
            rc = rq_cnf(r);
            break;
        case 1:
            claim = rq_name(r, rq_claims, 2);
            if (claim < 0) return RQ_DECLINE;
            r->claim = claim == 0 ? RQ_SAT : RQ_UNSAT;
            rc = RQ_ACCEPT;
            break;
        case 2:
            rc = rq_lits(r, &r->assignment, r->max_vars, 1, r->max_assignment_literals);
            break;
        default:
            rc = rq_proof(r);
        }
        if (rc != RQ_ACCEPT) return rc;
    } while (rq_eat(r, ','));
    if (!rq_eat(r, '}')) return RQ_DECLINE;
    rq_ws(r);
    if (r->p != r->end) return RQ_DECLINE;          /* trailing bytes */
    /* cnf and claim; an assignment for a sat claim only, a proof for unsat only. */
    if ((seen & 3) != 3) return RQ_DECLINE;
    if ((seen & 12) != (r->claim == RQ_SAT ? 4 : 8)) return RQ_DECLINE;
    return rq_finish(r);
}

#endif /* SCC_REQUEST_SCAN_H */
