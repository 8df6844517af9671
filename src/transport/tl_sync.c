/* transport: point-to-point synchronization, wait_until and test on a symmetric variable of this
 * PE that peers update with puts or AMOs. Waiting spins briefly (the common case: the peer is
 * running on another core and the update is microseconds away), then yields the core on every
 * poll, so that 8 PEs on 2 cores let the PE that must write the variable run. The array forms
 * (wait_until_all/any/some, their _vector forms and the matching tests) and
 * symh_signal_wait_until use the same loop. */
#include <stdint.h>

#include <symheap/rma.h>
#include <symheap/signal.h>

#include "core/core_wait.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

/* Polls before the first sched_yield: about a microsecond or two of PAUSEs. */
#define SYMH_TL_SYNC_SPINS 256

static const char *const symh_tl_sync_cmp_names[] = { "SYMH_CMP_EQ", "SYMH_CMP_NE", "SYMH_CMP_GT",
                                                      "SYMH_CMP_GE", "SYMH_CMP_LT", "SYMH_CMP_LE" };

/* The hang line of a wait_until (SYMH_HANG_TIMEOUT): what it waits for and what it sees. */
static void symh_tl_sync_hang(const char *func, const void *ivar, int cmp, long long cmp_value,
                              long long value, const symh_wait_t *w)
{
    symh_error("%s: PE %d has waited %.0f s for ivar %p %s %lld; it is %lld (SYMH_HANG_TIMEOUT)",
               func, symh_tl_rma.my_pe, symh_wait_seconds(w), ivar, symh_tl_sync_cmp_names[cmp],
               cmp_value, value);
    symh_wait_hang_reported();
}

/* Whether `cmp` is one of SYMH_CMP_*; logs and records it when not. */
static int symh_tl_sync_cmp_ok(const char *func, int cmp)
{
    if (__builtin_expect(cmp >= SYMH_CMP_EQ && cmp <= SYMH_CMP_LE, 1))
        return 1;
    symh_error("%s: cmp %d is not one of SYMH_CMP_EQ .. SYMH_CMP_LE (0..5)", func, cmp);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 0;
}

#define SYMH_TL_SYNC_COMPARE(cmp, a, b)  \
    ((cmp) == SYMH_CMP_EQ   ? (a) == (b) \
     : (cmp) == SYMH_CMP_NE ? (a) != (b) \
     : (cmp) == SYMH_CMP_GT ? (a) > (b)  \
     : (cmp) == SYMH_CMP_GE ? (a) >= (b) \
     : (cmp) == SYMH_CMP_LT ? (a) < (b)  \
                            : (a) <= (b))

/* The variable must be this PE's symmetric one: peers write it through their mapping. Loads are
 * atomic with acquire order, so data put before a fence and the flag is visible after the wait. */
#define SYMH_TL_SYNC_DEFINE(NAME, TYPE)                                                            \
    void symh_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)                             \
    {                                                                                              \
        SYMH_TL_RMA_ACCESS(access, "ivar", sizeof(TYPE), _Alignof(TYPE), SYMH_TL_RMA_BLOCKING);    \
        TYPE *local, seen;                                                                         \
        symh_wait_t w;                                                                             \
                                                                                                   \
        SYMH_TL_RMA_CHECK_UP();                                                                    \
        if (!symh_tl_sync_cmp_ok(__func__, cmp))                                                   \
            return;                                                                                \
        local = (TYPE *)symh_tl_rma_xlate(&access, ivar, 1, symh_tl_rma.my_pe);                    \
        if (local == NULL)                                                                         \
            return;                                                                                \
        symh_wait_start(&w, SYMH_TL_SYNC_SPINS);                                                   \
        while (!SYMH_TL_SYNC_COMPARE(cmp, seen = __atomic_load_n(local, __ATOMIC_ACQUIRE),         \
                                     cmp_value)) {                                                 \
            if (symh_tl_nic != NULL) /* NIC-delivered updates may need this PE's progress */       \
                symh_tl_nic_progress();                                                            \
            if (symh_unlikely(symh_wait_step(&w)))                                                 \
                symh_tl_sync_hang(__func__, ivar, cmp, (long long)cmp_value, (long long)seen, &w); \
        }                                                                                          \
        symh_status_set(SYMH_OK);                                                                  \
    }                                                                                              \
    int symh_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                                    \
    {                                                                                              \
        SYMH_TL_RMA_ACCESS(access, "ivar", sizeof(TYPE), _Alignof(TYPE), SYMH_TL_RMA_BLOCKING);    \
        TYPE *local;                                                                               \
        int result;                                                                                \
                                                                                                   \
        SYMH_TL_RMA_CHECK_UP(0);                                                                   \
        if (!symh_tl_sync_cmp_ok(__func__, cmp))                                                   \
            return 0;                                                                              \
        local = (TYPE *)symh_tl_rma_xlate(&access, ivar, 1, symh_tl_rma.my_pe);                    \
        if (local == NULL)                                                                         \
            return 0;                                                                              \
        if (symh_tl_nic != NULL)                                                                   \
            symh_tl_nic_progress();                                                                \
        result = SYMH_TL_SYNC_COMPARE(cmp, __atomic_load_n(local, __ATOMIC_ACQUIRE), cmp_value);   \
        symh_status_set(SYMH_OK);                                                                  \
        return result;                                                                             \
    }
SYMH_P2P_TYPES(SYMH_TL_SYNC_DEFINE)
#undef SYMH_TL_SYNC_DEFINE

/* ---- signal_wait_until: the uint64_t wait that returns the value it saw ------------------- */

uint64_t symh_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    SYMH_TL_RMA_ACCESS(access, "sig_addr", sizeof(uint64_t), _Alignof(uint64_t),
                       SYMH_TL_RMA_BLOCKING);
    uint64_t *local, seen;
    symh_wait_t w;

    SYMH_TL_RMA_CHECK_UP(0);
    if (!symh_tl_sync_cmp_ok(__func__, cmp))
        return 0;
    local = (uint64_t *)symh_tl_rma_xlate(&access, sig_addr, 1, symh_tl_rma.my_pe);
    if (local == NULL)
        return 0;
    symh_wait_start(&w, SYMH_TL_SYNC_SPINS);
    while (!SYMH_TL_SYNC_COMPARE(cmp, seen = __atomic_load_n(local, __ATOMIC_ACQUIRE), cmp_value)) {
        if (symh_tl_nic != NULL)
            symh_tl_nic_progress();
        if (symh_unlikely(symh_wait_step(&w)))
            symh_tl_sync_hang(__func__, sig_addr, cmp, (long long)cmp_value, (long long)seen, &w);
    }
    symh_status_set(SYMH_OK);
    return seen;
}

/* ---- the array forms: wait_until_{all,any,some}[_vector], test_{all,any,some}[_vector] ----- */

enum { SYMH_TL_SYNC_ALL, SYMH_TL_SYNC_ANY, SYMH_TL_SYNC_SOME };

/* What an array form returns when nothing matched or the call was refused: test_all 0, the
 * _any forms SIZE_MAX, the _some forms 0. */
static size_t symh_tl_sync_none(int mode)
{
    return mode == SYMH_TL_SYNC_ANY ? SIZE_MAX : 0;
}

/* The hang line of an array wait (SYMH_HANG_TIMEOUT). */
static void symh_tl_sync_array_hang(const char *func, const void *ivars, size_t nelems, int cmp,
                                    size_t hits, size_t included, const symh_wait_t *w)
{
    symh_error("%s: PE %d has waited %.0f s for ivars %p (%zu elements, %s); %zu of the %zu "
               "included compare true (SYMH_HANG_TIMEOUT)",
               func, symh_tl_rma.my_pe, symh_wait_seconds(w), ivars, nelems,
               symh_tl_sync_cmp_names[cmp], hits, included);
    symh_wait_hang_reported();
}

/* The arguments every array form checks: cmp, and the local arrays it needs. */
static int symh_tl_sync_array_args_ok(const char *func, int cmp, const void *values, int vector,
                                      const size_t *indices, int mode)
{
    const char *missing = NULL;

    if (!symh_tl_sync_cmp_ok(func, cmp))
        return 0;
    if (vector && values == NULL)
        missing = "cmp_values";
    else if (mode == SYMH_TL_SYNC_SOME && indices == NULL)
        missing = "indices";
    if (missing == NULL)
        return 1;
    symh_error("%s: %s is NULL", func, missing);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 0;
}

/* Where this thread's next _any call starts looking: one past the index the last one returned.
 * OpenSHMEM asks that repeated _any calls over the same ready elements return each of them in
 * turn, not the lowest forever: a program that polls test_any without a status mask and counts
 * the distinct indices it has seen must get them all (the lowest-first answer starves the rest). */
static _Thread_local size_t symh_tl_sync_any_next;

/* One routine per type behind the twelve array forms: checks the call, then scans the included
 * elements until the mode's condition holds (at once when `wait` is 0). ALL returns 1 when every
 * included element compares true, ANY the first index that does at or after where this thread's
 * last _any left off, wrapping around (or SIZE_MAX), SOME how many do (their indices, ascending,
 * into `indices`). */
#define SYMH_TL_SYNC_ARRAY_DEFINE(NAME, TYPE)                                                      \
    static size_t symh_tl_sync_array_##NAME(                                                       \
        const char *func, int mode, int wait, TYPE *ivars, size_t nelems, size_t *indices,         \
        const int *status, int cmp, TYPE cmp_value, const TYPE *cmp_values, int vector)            \
    {                                                                                              \
        const symh_tl_rma_access_t access = { func, "ivars", sizeof(TYPE), _Alignof(TYPE),         \
                                              SYMH_TL_RMA_BLOCKING };                              \
        size_t i, hits, first, after, included, start;                                             \
        const TYPE *local;                                                                         \
        symh_wait_t w;                                                                             \
        TYPE value;                                                                                \
                                                                                                   \
        SYMH_TL_RMA_CHECK_UP_IN(func, symh_tl_sync_none(mode));                                    \
        if (!symh_tl_sync_array_args_ok(func, cmp, cmp_values, vector, indices, mode))             \
            return symh_tl_sync_none(mode);                                                        \
        if (nelems == 0) {                                                                         \
            symh_status_set(SYMH_OK);                                                              \
            return mode == SYMH_TL_SYNC_ALL ? 1 : symh_tl_sync_none(mode);                         \
        }                                                                                          \
        local = (const TYPE *)symh_tl_rma_xlate(&access, ivars, nelems, symh_tl_rma.my_pe);        \
        if (local == NULL)                                                                         \
            return symh_tl_sync_none(mode);                                                        \
        start = symh_tl_sync_any_next;                                                             \
        if (!wait && symh_tl_nic != NULL) /* a test polls: NIC-delivered updates need progress */  \
            symh_tl_nic_progress();                                                                \
        symh_wait_start(&w, SYMH_TL_SYNC_SPINS);                                                   \
        for (;;) {                                                                                 \
            hits = included = 0;                                                                   \
            first = after = SIZE_MAX;                                                              \
            for (i = 0; i < nelems; ++i) {                                                         \
                if (status != NULL && status[i] != 0)                                              \
                    continue;                                                                      \
                ++included;                                                                        \
                value = __atomic_load_n(&local[i], __ATOMIC_ACQUIRE);                              \
                if (!SYMH_TL_SYNC_COMPARE(cmp, value, vector ? cmp_values[i] : cmp_value))         \
                    continue;                                                                      \
                if (first == SIZE_MAX)                                                             \
                    first = i;                                                                     \
                if (after == SIZE_MAX && i >= start)                                               \
                    after = i;                                                                     \
                if (mode == SYMH_TL_SYNC_SOME)                                                     \
                    indices[hits] = i;                                                             \
                ++hits;                                                                            \
            }                                                                                      \
            if (mode == SYMH_TL_SYNC_ALL ? hits == included : hits > 0 || included == 0)           \
                break;                                                                             \
            if (!wait)                                                                             \
                break;                                                                             \
            if (symh_tl_nic != NULL)                                                               \
                symh_tl_nic_progress();                                                            \
            if (symh_unlikely(symh_wait_step(&w)))                                                 \
                symh_tl_sync_array_hang(func, ivars, nelems, cmp, hits, included, &w);             \
        }                                                                                          \
        symh_status_set(SYMH_OK);                                                                  \
        if (mode == SYMH_TL_SYNC_ALL)                                                              \
            return hits == included;                                                               \
        if (mode == SYMH_TL_SYNC_SOME)                                                             \
            return hits;                                                                           \
        first = after != SIZE_MAX ? after : first;                                                 \
        if (first != SIZE_MAX)                                                                     \
            symh_tl_sync_any_next = first + 1;                                                     \
        return first;                                                                              \
    }                                                                                              \
    void symh_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                      TYPE cmp_value)                                              \
    {                                                                                              \
        (void)symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ALL, 1, ivars, nelems, NULL,        \
                                        status, cmp, cmp_value, NULL, 0);                          \
    }                                                                                              \
    size_t symh_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                        TYPE cmp_value)                                            \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ANY, 1, ivars, nelems, NULL,       \
                                         status, cmp, cmp_value, NULL, 0);                         \
    }                                                                                              \
    size_t symh_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,              \
                                         const int *status, int cmp, TYPE cmp_value)               \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_SOME, 1, ivars, nelems, indices,   \
                                         status, cmp, cmp_value, NULL, 0);                         \
    }                                                                                              \
    void symh_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status,        \
                                             int cmp, TYPE *cmp_values)                            \
    {                                                                                              \
        (void)symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ALL, 1, ivars, nelems, NULL,        \
                                        status, cmp, 0, cmp_values, 1);                            \
    }                                                                                              \
    size_t symh_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems, const int *status,      \
                                               int cmp, TYPE *cmp_values)                          \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ANY, 1, ivars, nelems, NULL,       \
                                         status, cmp, 0, cmp_values, 1);                           \
    }                                                                                              \
    size_t symh_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices,       \
                                                const int *status, int cmp, TYPE *cmp_values)      \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_SOME, 1, ivars, nelems, indices,   \
                                         status, cmp, 0, cmp_values, 1);                           \
    }                                                                                              \
    int symh_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,             \
                               TYPE cmp_value)                                                     \
    {                                                                                              \
        return (int)symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ALL, 0, ivars, nelems, NULL,  \
                                              status, cmp, cmp_value, NULL, 0);                    \
    }                                                                                              \
    size_t symh_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,          \
                                  TYPE cmp_value)                                                  \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ANY, 0, ivars, nelems, NULL,       \
                                         status, cmp, cmp_value, NULL, 0);                         \
    }                                                                                              \
    size_t symh_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                   int cmp, TYPE cmp_value)                                        \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_SOME, 0, ivars, nelems, indices,   \
                                         status, cmp, cmp_value, NULL, 0);                         \
    }                                                                                              \
    int symh_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                      TYPE *cmp_values)                                            \
    {                                                                                              \
        return (int)symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ALL, 0, ivars, nelems, NULL,  \
                                              status, cmp, 0, cmp_values, 1);                      \
    }                                                                                              \
    size_t symh_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,   \
                                         TYPE *cmp_values)                                         \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_ANY, 0, ivars, nelems, NULL,       \
                                         status, cmp, 0, cmp_values, 1);                           \
    }                                                                                              \
    size_t symh_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,             \
                                          const int *status, int cmp, TYPE *cmp_values)            \
    {                                                                                              \
        return symh_tl_sync_array_##NAME(__func__, SYMH_TL_SYNC_SOME, 0, ivars, nelems, indices,   \
                                         status, cmp, 0, cmp_values, 1);                           \
    }
SYMH_P2P_TYPES(SYMH_TL_SYNC_ARRAY_DEFINE)
#undef SYMH_TL_SYNC_ARRAY_DEFINE
