/* transport: point-to-point synchronization, wait_until and test on a symmetric variable of this
 * PE that peers update with puts or AMOs. Waiting spins briefly (the common case: the peer is
 * running on another core and the update is microseconds away), then yields the core on every
 * poll, so that 8 PEs on 2 cores let the PE that must write the variable run. */
#include <stdint.h>

#include <symheap/rma.h>

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
