/* Literal sets for the compiled engine: sorting, hashing, comparing.
 *
 * SPEC §4.1: a delete removes the live clause with the highest id whose
 * literal *set* equals the step's.  The kernel keys its table of clause groups
 * by a hash of the sorted distinct literals and compares the sorted literals
 * exactly on a hash match, so a collision costs time, never a wrong match.
 *
 * Header-only: every function is static inline and needs only the C library.
 */
#ifndef SAT_CLAIM_CHECK_LITSET_H
#define SAT_CLAIM_CHECK_LITSET_H

#include <stdint.h>
#include <stdlib.h>

/* Below this size an insertion sort beats qsort's indirect calls. */
#define SCC_INSERTION_SORT_MAX 24

static inline int scc_lit_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Sort n literals ascending, in place. */
static inline void scc_sort_lits(int32_t *a, int32_t n)
{
    if (n <= SCC_INSERTION_SORT_MAX) {
        for (int32_t i = 1; i < n; i++) {
            int32_t x = a[i];
            int32_t j = i;
            while (j > 0 && a[j - 1] > x) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
    } else {
        qsort(a, (size_t)n, sizeof(int32_t), scc_lit_cmp);
    }
}

/* The splitmix64 finaliser: a cheap bijective mix of 64 bits. */
static inline uint64_t scc_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Hash of n sorted distinct literals (the set, with its size): one multiply
 * per literal, then a full mix, since the table uses the low bits. */
static inline uint64_t scc_hash_lits(const int32_t *a, int32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)n;
    for (int32_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)(uint32_t)a[i]) * 0x100000001b3ULL;
    return scc_mix64(h);
}

/* 1 when the n literals at a and at b are equal, element by element. */
static inline int scc_lits_equal(const int32_t *a, const int32_t *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

#endif /* SAT_CLAIM_CHECK_LITSET_H */
