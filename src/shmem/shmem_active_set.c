/* shmem: the deprecated OpenSHMEM active-set collectives (shmem_barrier, shmem_broadcast32/64,
 * shmem_collect32/64, shmem_fcollect32/64, shmem_alltoall32/64, shmem_alltoalls32/64) over RMA,
 * atomics and signals on the caller's pSync.
 *
 * Why not teams: an active-set call is collective over the set's members only; the PEs outside
 * it do not call. symheap's teams are split collectively over a parent (the world here), so a
 * set cannot become a team on first use without the other PEs, and caching teams by set would
 * also outlive symh_finalize. pSync is the symmetric work space the specification hands to
 * exactly this purpose, so every routine here works on its words alone, one-sided:
 *
 * - barrier (pSync[0]): a central counter. Members other than the set's first PE (the root) add
 *   1 to the root's word with a fetching atomic and wait for their own word to become nonzero;
 *   the root waits for PE_size - 1 arrivals, takes them off its word (back to 0) before it
 *   releases anyone, then sets each member's word to 1; a released member swaps its word back
 *   to 0 before it can arrive again. So a member's next arrival always finds the root's word
 *   reset, and the root's next release always finds the member's word reset: the same pSync
 *   serves consecutive barriers with no other synchronization, as the specification allows.
 *   2 (PE_size - 1) small messages, O(PE_size) at the root: fine for a deprecated routine.
 * - fcollect, alltoall (pSync[0]): each sender puts its block straight into the receivers' dest
 *   with put-with-signal (SYMH_SIGNAL_ADD 1 on the receiver's pSync[0]); a receiver waits until
 *   the word counts its senders, then stores 0. One message per block, no round trip; the signal
 *   orders the data before it on every transport. A member that returns has had a block from
 *   every other member, so each of them has left its previous call on any pSync.
 * - broadcast (pSync[0], pSync[1]): the root puts to each member with a signal on its pSync[0], as
 *   above, and each member, once it has stored 0 back, adds 1 to the root's pSync[1]; the root
 *   returns when all have, after resetting that word. Without the acknowledgement nothing tells
 *   the root that a member is done: a program that alternates two pSync arrays with no barrier
 *   between broadcasts (which the specification allows) lets the root run two calls ahead and
 *   signal into a pSync[0] the member has not yet reset, and the reset loses that signal.
 * - collect (pSync[0], pSync[1]): as fcollect, after a chain of offsets: member i learns where
 *   its block starts from member i - 1 (a fetching swap of offset + 1 into pSync[1]), passes
 *   offset + nelems on, and resets its word.
 * - alltoalls: strided puts (iput), one fence, then a signal-only put to each member.
 * The reductions (shmem_reduce.c) use this barrier. Words updated by atomics are read with the
 * long waits; words updated by signals with the signal waits (never both on one word in a call).
 * Callers keep the specification's rules: dest ready on every member before any member calls,
 * pSync all SHMEM_SYNC_VALUE (0) before the call and not in use by another collective, and a
 * synchronization before the same pSync serves the next data collective. */
#include <stdint.h>
#include <string.h>

#include <symheap.h>

#include "core/core_log.h"
#include "core/core_status.h"
#include <shmem.h>
#include "shmem/shmem_set.h"

int symh_shmem_set_init(const char *func, int PE_start, int logPE_stride, int PE_size,
                        const long *pSync, symh_shmem_set_t *set)
{
    long long last;
    int n_pes, me;

    if (!symh_initialized()) {
        if (symh_status_fork_pe >= 0)
            SYMH_LOG_NOT_INITIALIZED(func);
        else
            symh_error("%s: symheap is not initialized (call start_pes or shmem_init first)", func);
        return symh_status_set(SYMH_ERR_NOT_INITIALIZED);
    }
    n_pes = symh_n_pes();
    me = symh_my_pe();
    if (PE_start < 0 || PE_start >= n_pes || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1) {
        symh_error("%s: the active set PE_start %d, logPE_stride %d, PE_size %d is not valid "
                   "(0 <= PE_start < %d, 0 <= logPE_stride <= 30, PE_size >= 1)",
                   func, PE_start, logPE_stride, PE_size, n_pes);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    last = PE_start + (long long)(PE_size - 1) * (1LL << logPE_stride);
    if (last >= n_pes) {
        symh_error("%s: the active set PE_start %d, logPE_stride %d, PE_size %d ends at PE %lld, "
                   "past the last PE %d",
                   func, PE_start, logPE_stride, PE_size, last, n_pes - 1);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (me < PE_start || me > last || (me - PE_start) % (1 << logPE_stride) != 0) {
        symh_error("%s: PE %d is not in the active set PE_start %d, logPE_stride %d, PE_size %d "
                   "(only its members call)",
                   func, me, PE_start, logPE_stride, PE_size);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (pSync == NULL) {
        symh_error("%s: pSync is NULL", func);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    set->start = PE_start;
    set->stride = 1 << logPE_stride;
    set->size = PE_size;
    set->me = (me - PE_start) / set->stride;
    return SYMH_OK;
}

/* A word this PE waited on goes back to SHMEM_SYNC_VALUE; nobody else writes it until the
 * caller's next use of pSync. */
static void symh_shmem_sync_reset(long *word)
{
    __atomic_store_n(word, 0L, __ATOMIC_RELEASE);
}

void symh_shmem_set_barrier(const symh_shmem_set_t *set, long *pSync)
{
    int root = symh_shmem_set_pe(set, 0);
    int i;

    symh_quiet();
    if (set->size == 1)
        return;
    if (set->me != 0) {
        symh_long_atomic_fetch_add(&pSync[0], 1, root);
        symh_long_wait_until(&pSync[0], SYMH_CMP_NE, 0);
        symh_long_atomic_swap(&pSync[0], 0, symh_my_pe());
        return;
    }
    symh_long_wait_until(&pSync[0], SYMH_CMP_GE, set->size - 1);
    symh_long_atomic_fetch_add(&pSync[0], -(long)(set->size - 1), root);
    for (i = 1; i < set->size; ++i)
        symh_long_atomic_set(&pSync[0], 1, symh_shmem_set_pe(set, i));
    symh_quiet();
}

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    symh_shmem_set_t set;

    if (symh_shmem_set_init("shmem_barrier", PE_start, logPE_stride, PE_size, pSync, &set) !=
        SYMH_OK)
        return;
    symh_shmem_set_barrier(&set, pSync);
    symh_status_set(SYMH_OK);
}
SYMH_SHMEM_WEAK_(shmem_barrier);

/* The signal word of the data collectives. pSync is long; uint64_t is unsigned long on the
 * LP64 targets symheap builds for, the same object type up to sign. */
static uint64_t *symh_shmem_signal_word(long *pSync)
{
    return (uint64_t *)(void *)pSync;
}

/* Waits until `senders` signals have come to pSync[0], then resets it. */
static void symh_shmem_wait_senders(long *pSync, int senders)
{
    if (senders > 0) {
        symh_signal_wait_until(symh_shmem_signal_word(pSync), SYMH_CMP_GE, (uint64_t)senders);
        symh_shmem_sync_reset(&pSync[0]);
    }
}

/* nelems elements of `width` bytes as a byte count; 0 and one line when it overflows. */
static int symh_shmem_bytes(const char *func, size_t nelems, size_t width, size_t *bytes)
{
    if (nelems > SIZE_MAX / width) {
        symh_error("%s: nelems %zu elements of %zu bytes overflow size_t", func, nelems, width);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    *bytes = nelems * width;
    return SYMH_OK;
}

static void symh_shmem_broadcast(const char *func, void *dest, const void *source, size_t nelems,
                                 size_t width, int PE_root, int PE_start, int logPE_stride,
                                 int PE_size, long *pSync)
{
    symh_shmem_set_t set;
    size_t bytes = 0;
    int k;

    if (symh_shmem_set_init(func, PE_start, logPE_stride, PE_size, pSync, &set) != SYMH_OK ||
        symh_shmem_bytes(func, nelems, width, &bytes) != SYMH_OK)
        return;
    if (PE_root < 0 || PE_root >= set.size) {
        symh_error("%s: PE_root %d is not an index of the active set (0 to %d)", func, PE_root,
                   set.size - 1);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (bytes == 0 || set.size == 1)
        return;
    if (set.me != PE_root) {
        symh_shmem_wait_senders(pSync, 1);
        symh_long_atomic_add(&pSync[1], 1, symh_shmem_set_pe(&set, PE_root));
        return;
    }
    /* The root's own dest is not written (the active-set broadcast's rule). */
    for (k = 1; k < set.size; ++k)
        symh_putmem_signal(dest, source, bytes, symh_shmem_signal_word(pSync), 1, SYMH_SIGNAL_ADD,
                           symh_shmem_set_pe(&set, (set.me + k) % set.size));
    symh_quiet();
    symh_long_wait_until(&pSync[1], SYMH_CMP_GE, set.size - 1);
    symh_long_atomic_swap(&pSync[1], 0, symh_my_pe());
}

/* collect (fixed == 0) and fcollect (fixed == 1). */
static void symh_shmem_collect(const char *func, void *dest, const void *source, size_t nelems,
                               size_t width, int fixed, int PE_start, int logPE_stride, int PE_size,
                               long *pSync)
{
    symh_shmem_set_t set;
    size_t bytes = 0, offset;
    int k;

    if (symh_shmem_set_init(func, PE_start, logPE_stride, PE_size, pSync, &set) != SYMH_OK ||
        symh_shmem_bytes(func, nelems, width, &bytes) != SYMH_OK)
        return;
    if (fixed) {
        if (bytes == 0)
            return;
        offset = (size_t)set.me * bytes;
    } else {
        offset = 0;
        if (set.me > 0) {
            symh_long_wait_until(&pSync[1], SYMH_CMP_NE, 0);
            offset = (size_t)(__atomic_load_n(&pSync[1], __ATOMIC_ACQUIRE) - 1) * width;
            symh_long_atomic_swap(&pSync[1], 0, symh_my_pe());
        }
        if (set.me + 1 < set.size)
            symh_long_atomic_swap(&pSync[1], (long)((offset + bytes) / width) + 1,
                                  symh_shmem_set_pe(&set, set.me + 1));
    }
    memcpy((char *)dest + offset, source, bytes);
    /* A block of 0 bytes still signals; its put names dest itself, which is always in range. */
    for (k = 1; k < set.size; ++k)
        symh_putmem_signal(bytes > 0 ? (char *)dest + offset : dest, source, bytes,
                           symh_shmem_signal_word(pSync), 1, SYMH_SIGNAL_ADD,
                           symh_shmem_set_pe(&set, (set.me + k) % set.size));
    symh_quiet();
    symh_shmem_wait_senders(pSync, set.size - 1);
}

typedef void (*symh_shmem_iput_func_t)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                       size_t nelems, int pe);

/* alltoall (iput == NULL) and alltoalls (strides dst, sst; iput the sized strided put). */
static void symh_shmem_alltoall(const char *func, void *dest, const void *source, ptrdiff_t dst,
                                ptrdiff_t sst, size_t nelems, size_t width,
                                symh_shmem_iput_func_t iput, int PE_start, int logPE_stride,
                                int PE_size, long *pSync)
{
    symh_shmem_set_t set;
    size_t bytes = 0, e;
    int k;

    if (symh_shmem_set_init(func, PE_start, logPE_stride, PE_size, pSync, &set) != SYMH_OK ||
        symh_shmem_bytes(func, nelems, width, &bytes) != SYMH_OK)
        return;
    if (dst < 1 || sst < 1) {
        symh_error("%s: strides dst %td and sst %td must be at least 1", func, dst, sst);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (bytes == 0)
        return;
    /* Block j of this PE's source goes to block me of PE j's dest. */
    for (k = 1; k < set.size; ++k) {
        int j = (set.me + k) % set.size;
        char *to = (char *)dest + (size_t)dst * (size_t)set.me * bytes;
        const char *from = (const char *)source + (size_t)sst * (size_t)j * bytes;

        if (iput == NULL)
            symh_putmem_signal(to, from, bytes, symh_shmem_signal_word(pSync), 1, SYMH_SIGNAL_ADD,
                               symh_shmem_set_pe(&set, j));
        else
            iput(to, from, dst, sst, nelems, symh_shmem_set_pe(&set, j));
    }
    if (iput != NULL && set.size > 1) {
        symh_fence();
        for (k = 1; k < set.size; ++k)
            symh_putmem_signal(dest, source, 0, symh_shmem_signal_word(pSync), 1, SYMH_SIGNAL_ADD,
                               symh_shmem_set_pe(&set, (set.me + k) % set.size));
    }
    if (dst == 1 && sst == 1)
        memcpy((char *)dest + (size_t)set.me * bytes, (const char *)source + (size_t)set.me * bytes,
               bytes);
    else
        for (e = 0; e < nelems; ++e)
            memcpy((char *)dest + ((size_t)set.me * nelems + e) * (size_t)dst * width,
                   (const char *)source + ((size_t)set.me * nelems + e) * (size_t)sst * width,
                   width);
    symh_quiet();
    symh_shmem_wait_senders(pSync, set.size - 1);
}

#define SYMH_SHMEM_ACTIVE_SET_DEFINE(BITS)                                                      \
    void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,     \
                                int PE_start, int logPE_stride, int PE_size, long *pSync)       \
    {                                                                                           \
        symh_shmem_broadcast("shmem_broadcast" #BITS, dest, source, nelems, BITS / 8, PE_root,  \
                             PE_start, logPE_stride, PE_size, pSync);                           \
    }                                                                                           \
    void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,      \
                              int logPE_stride, int PE_size, long *pSync)                       \
    {                                                                                           \
        symh_shmem_collect("shmem_collect" #BITS, dest, source, nelems, BITS / 8, 0, PE_start,  \
                           logPE_stride, PE_size, pSync);                                       \
    }                                                                                           \
    void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                               int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                           \
        symh_shmem_collect("shmem_fcollect" #BITS, dest, source, nelems, BITS / 8, 1, PE_start, \
                           logPE_stride, PE_size, pSync);                                       \
    }                                                                                           \
    void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                               int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                           \
        symh_shmem_alltoall("shmem_alltoall" #BITS, dest, source, 1, 1, nelems, BITS / 8, NULL, \
                            PE_start, logPE_stride, PE_size, pSync);                            \
    }                                                                                           \
    void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                size_t nelems, int PE_start, int logPE_stride, int PE_size,     \
                                long *pSync)                                                    \
    {                                                                                           \
        symh_shmem_alltoall("shmem_alltoalls" #BITS, dest, source, dst, sst, nelems, BITS / 8,  \
                            symh_iput##BITS, PE_start, logPE_stride, PE_size, pSync);           \
    }                                                                                           \
    SYMH_SHMEM_WEAK_(shmem_broadcast##BITS);                                                    \
    SYMH_SHMEM_WEAK_(shmem_collect##BITS);                                                      \
    SYMH_SHMEM_WEAK_(shmem_fcollect##BITS);                                                     \
    SYMH_SHMEM_WEAK_(shmem_alltoall##BITS);                                                     \
    SYMH_SHMEM_WEAK_(shmem_alltoalls##BITS);
SYMH_SHMEM_ACTIVE_SET_DEFINE(32)
SYMH_SHMEM_ACTIVE_SET_DEFINE(64)
#undef SYMH_SHMEM_ACTIVE_SET_DEFINE
