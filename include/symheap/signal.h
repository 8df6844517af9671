/* symheap public header: put-with-signal and the signal routines (OpenSHMEM 1.5 "Signaling
 * Operations" under the symh_ prefix; docs/signals.md). A put-with-signal copies the data to
 * `dest` on `pe`, then updates the symmetric uint64_t signal word `sig_addr` there: a PE that
 * sees the update (symh_signal_wait_until, symh_uint64_wait_until, symh_signal_fetch) sees the
 * data, on every transport. Signal updates are atomic with respect to each other, to
 * symh_signal_fetch and to the point-to-point waits on the word. */
#ifndef SYMHEAP_SIGNAL_H
#define SYMHEAP_SIGNAL_H

#include <stddef.h>
#include <stdint.h>

#include <symheap/defs.h>
#include <symheap/rma.h>

SYMH_BEGIN_C_DECLS

/* The signal operators (sig_op): the signal word becomes `signal`, or grows by it. */
#define SYMH_SIGNAL_SET 0
#define SYMH_SIGNAL_ADD 1

/* Blocking forms return with `source` reusable; the _nbi forms may leave the data and the signal
 * to symh_quiet, and `source` must stay untouched until then. A misuse (PE out of range, an
 * address that is not symmetric or runs past its allocation, a signal word not 8-byte aligned,
 * an unknown sig_op) logs one line, performs nothing and sets symh_last_error(). nelems 0 still
 * updates the signal. Each has a symh_ctx_ form, the context first (symheap/ctx.h). */
#define SYMH_SIGNAL_MEM_DECLARE(P, CP, NAME, TYPE)                                          \
    SYMH_API void P##_putmem_signal(SYMH_UNPAREN_ CP void *dest, const void *source,        \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                    int sig_op, int pe);                                    \
    SYMH_API void P##_putmem_signal_nbi(SYMH_UNPAREN_ CP void *dest, const void *source,    \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                        int sig_op, int pe);
SYMH_CTX_FORMS_(SYMH_SIGNAL_MEM_DECLARE, mem, void)
#undef SYMH_SIGNAL_MEM_DECLARE

#define SYMH_SIGNAL_DECLARE(P, CP, NAME, TYPE)                                                    \
    SYMH_API void P##_##NAME##_put_signal(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,        \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                          int sig_op, int pe);                                    \
    SYMH_API void P##_##NAME##_put_signal_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,    \
                                              size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                              int sig_op, int pe);
#define SYMH_SIGNAL_DECLARE_FORMS(NAME, TYPE) SYMH_CTX_FORMS_(SYMH_SIGNAL_DECLARE, NAME, TYPE)
SYMH_RMA_TYPES(SYMH_SIGNAL_DECLARE_FORMS)
#undef SYMH_SIGNAL_DECLARE_FORMS
#undef SYMH_SIGNAL_DECLARE

/* The sized forms: nelems elements of 8, 16, 32, 64 or 128 bits. */
#define SYMH_SIGNAL_SIZED_DECLARE(P, CP, BITS, UNUSED)                                           \
    SYMH_API void P##_put##BITS##_signal(SYMH_UNPAREN_ CP void *dest, const void *source,        \
                                         size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                         int sig_op, int pe);                                    \
    SYMH_API void P##_put##BITS##_signal_nbi(SYMH_UNPAREN_ CP void *dest, const void *source,    \
                                             size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                             int sig_op, int pe);
#define SYMH_SIGNAL_SIZED_DECLARE_FORMS(BITS) SYMH_CTX_FORMS_(SYMH_SIGNAL_SIZED_DECLARE, BITS, void)
SYMH_RMA_SIZES(SYMH_SIGNAL_SIZED_DECLARE_FORMS)
#undef SYMH_SIGNAL_SIZED_DECLARE_FORMS
#undef SYMH_SIGNAL_SIZED_DECLARE

/* The value of this PE's signal word `sig_addr` (a symmetric address of this PE); 0 and
 * symh_last_error() on misuse. */
SYMH_API uint64_t symh_signal_fetch(const uint64_t *sig_addr);
/* Waits until this PE's signal word compares to cmp_value by cmp (SYMH_CMP_*) and returns the
 * value that satisfied it (0 on misuse). */
SYMH_API uint64_t symh_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

SYMH_END_C_DECLS

#endif /* SYMHEAP_SIGNAL_H */
