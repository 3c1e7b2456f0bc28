/* Literal sets for the compiled engine: an order-independent hash.
 *
 * SPEC §4.1: a delete removes the live clause with the highest id whose
 * literal *set* equals the step's.  The kernel keys its table of clause groups
 * by a hash of the set of distinct literals and compares the sets exactly on a
 * hash match (with its per-literal marks), so a collision costs time, never a
 * wrong match.  The hash is a sum of per-literal mixes, so it needs no sorting
 * and is taken in the same pass that finds a clause's distinct literals.
 *
 * Header-only: every function is static inline and needs only the C library.
 */
#ifndef SAT_CLAIM_CHECK_LITSET_H
#define SAT_CLAIM_CHECK_LITSET_H

#include <stdint.h>

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

/* One literal's share of its set's hash: add these over the distinct
 * literals (in any order), then finish with scc_set_hash.  ``seed`` is
 * drawn at random once a process: with a hash anyone can compute, a proof
 * could be made of literal sets that all land in one run of the table, and
 * every delete would then walk the run (time the work counter does not see,
 * so neither the cap nor a deadline would stop it). */
static inline uint64_t scc_lit_key(int32_t lit, uint64_t seed)
{
    return scc_mix64((uint64_t)(uint32_t)lit + seed);
}

/* The hash of a set of n distinct literals whose keys add up to sum; fully
 * mixed, since the table uses the low bits. */
static inline uint64_t scc_set_hash(uint64_t sum, int32_t n)
{
    return scc_mix64(sum ^ ((uint64_t)(uint32_t)n * 0xd6e8feb86659fd93ULL));
}

#endif /* SAT_CLAIM_CHECK_LITSET_H */
