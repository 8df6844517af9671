/* transport: the atomic memory operations, as CPU atomic instructions (GCC/C11 __atomic
 * builtins) on the peer's mapped address. Every AMO type is 4 or 8 bytes, lock-free on x86-64
 * (checked below), so PEs in different processes update the same shared word atomically; a
 * type that needed libatomic's lock would only be atomic within one process. */
#include <stdint.h>

#include <symheap/rma.h>

#include "transport/tl_rma.h"

#define SYMH_TL_AMO_LOCK_FREE(NAME, TYPE)                      \
    _Static_assert(__atomic_always_lock_free(sizeof(TYPE), 0), \
                   "symh_" #NAME " atomics need lock-free " #TYPE);
SYMH_AMO_STANDARD_TYPES(SYMH_TL_AMO_LOCK_FREE)
SYMH_AMO_EXTENDED_TYPES(SYMH_TL_AMO_LOCK_FREE)
SYMH_AMO_BITWISE_TYPES(SYMH_TL_AMO_LOCK_FREE)
#undef SYMH_TL_AMO_LOCK_FREE

/* The mapped address of one TYPE on `pe`, or a return of 0 from the calling AMO. Sequentially
 * consistent ordering costs nothing extra on x86-64 for read-modify-write (LOCK-prefixed
 * anyway) and keeps AMOs ordered with each other, as lock idioms built on them expect. */
#define SYMH_TL_AMO_TARGET(remote, TYPE, arg, addr, pe, retval)                                   \
    SYMH_TL_RMA_CHECK_UP(retval);                                                                 \
    remote = (TYPE *)symh_tl_rma_xlate(__func__, arg, addr, 1, sizeof(TYPE), _Alignof(TYPE), pe); \
    if (remote == NULL)                                                                           \
        return retval;

/* fetch, set, swap: the generic builtins, which take float and double as well. */
#define SYMH_TL_AMO_FETCH_SET_SWAP(NAME, TYPE)                        \
    TYPE symh_##NAME##_atomic_fetch(const TYPE *source, int pe)       \
    {                                                                 \
        TYPE *remote, result;                                         \
                                                                      \
        SYMH_TL_AMO_TARGET(remote, TYPE, "source", source, pe, 0)     \
        __atomic_load(remote, &result, __ATOMIC_SEQ_CST);             \
        symh_status_set(SYMH_OK);                                     \
        return result;                                                \
    }                                                                 \
    void symh_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)     \
    {                                                                 \
        TYPE *remote;                                                 \
                                                                      \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, )          \
        __atomic_store(remote, &value, __ATOMIC_SEQ_CST);             \
        symh_status_set(SYMH_OK);                                     \
    }                                                                 \
    TYPE symh_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)    \
    {                                                                 \
        TYPE *remote, result;                                         \
                                                                      \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, 0)         \
        __atomic_exchange(remote, &value, &result, __ATOMIC_SEQ_CST); \
        symh_status_set(SYMH_OK);                                     \
        return result;                                                \
    }

/* One read-modify-write returning the old value (FETCH) or nothing. */
#define SYMH_TL_AMO_RMW(NAME, TYPE, OP, BUILTIN)                         \
    TYPE symh_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe) \
    {                                                                    \
        TYPE *remote, result;                                            \
                                                                         \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, 0)            \
        result = BUILTIN(remote, value, __ATOMIC_SEQ_CST);               \
        symh_status_set(SYMH_OK);                                        \
        return result;                                                   \
    }                                                                    \
    void symh_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)       \
    {                                                                    \
        TYPE *remote;                                                    \
                                                                         \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, )             \
        (void)BUILTIN(remote, value, __ATOMIC_SEQ_CST);                  \
        symh_status_set(SYMH_OK);                                        \
    }

#define SYMH_TL_AMO_STANDARD(NAME, TYPE)                                                          \
    SYMH_TL_AMO_FETCH_SET_SWAP(NAME, TYPE)                                                        \
    SYMH_TL_AMO_RMW(NAME, TYPE, add, __atomic_fetch_add)                                          \
    TYPE symh_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe)             \
    {                                                                                             \
        TYPE *remote;                                                                             \
                                                                                                  \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, 0)                                     \
        /* On failure the builtin writes the value it found into `cond`; on success that is       \
         * `cond` itself: either way `cond` ends up holding the old value. */                     \
        __atomic_compare_exchange_n(remote, &cond, value, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        symh_status_set(SYMH_OK);                                                                 \
        return cond;                                                                              \
    }                                                                                             \
    TYPE symh_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                                       \
    {                                                                                             \
        TYPE *remote, result;                                                                     \
                                                                                                  \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, 0)                                     \
        result = __atomic_fetch_add(remote, (TYPE)1, __ATOMIC_SEQ_CST);                           \
        symh_status_set(SYMH_OK);                                                                 \
        return result;                                                                            \
    }                                                                                             \
    void symh_##NAME##_atomic_inc(TYPE *dest, int pe)                                             \
    {                                                                                             \
        TYPE *remote;                                                                             \
                                                                                                  \
        SYMH_TL_AMO_TARGET(remote, TYPE, "dest", dest, pe, )                                      \
        (void)__atomic_fetch_add(remote, (TYPE)1, __ATOMIC_SEQ_CST);                              \
        symh_status_set(SYMH_OK);                                                                 \
    }

#define SYMH_TL_AMO_BITWISE(NAME, TYPE)                  \
    SYMH_TL_AMO_RMW(NAME, TYPE, and, __atomic_fetch_and) \
    SYMH_TL_AMO_RMW(NAME, TYPE, or, __atomic_fetch_or)   \
    SYMH_TL_AMO_RMW(NAME, TYPE, xor, __atomic_fetch_xor)

SYMH_AMO_STANDARD_TYPES(SYMH_TL_AMO_STANDARD)
SYMH_AMO_EXTENDED_TYPES(SYMH_TL_AMO_FETCH_SET_SWAP)
SYMH_AMO_BITWISE_TYPES(SYMH_TL_AMO_BITWISE)
