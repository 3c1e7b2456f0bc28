/* A read prefetch hint for the compiled kernel's propagation.
 *
 * A hint only: it changes no value and no result.  GCC and Clang get their
 * builtin; other compilers (MSVC) a no-op.  Header-only.
 */
#ifndef SAT_CLAIM_CHECK_PREFETCH_H
#define SAT_CLAIM_CHECK_PREFETCH_H

#if defined(__GNUC__) || defined(__clang__)
#define scc_prefetch(p) __builtin_prefetch((const void *)(p), 1, 3)
#else
#define scc_prefetch(p) ((void)(p))
#endif

#endif
