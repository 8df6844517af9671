/* core: the per-thread last error and the not-initialized check shared by every public entry. */
#ifndef SYMH_CORE_STATUS_H
#define SYMH_CORE_STATUS_H

#include <symheap/status.h>
#include "core/core_log.h"

/* This thread's last error (core_status.c). Initial-exec TLS: one %fs-relative store instead of
 * a __tls_get_addr call per public call (glibc reserves static TLS for a library loaded later,
 * and an int fits); hidden, so it is not part of the ABI. */
extern _Thread_local int symh_status_last
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Records `status` as this thread's last error and returns it, so `return symh_status_set(s);`
 * ends a public call. Inline: every data-path call ends with it. */
static inline int symh_status_set(int status)
{
    symh_status_last = status;
    return status;
}

/* In a child that fork() made while symheap was initialized: the PE it was forked from (set by
 * the runtime's pthread_atfork child handler, rt_init.c); -1 in every other process. A child is
 * no PE: every check of initialization reads this, so that each symheap call of the child fails
 * at once with one line (docs/heap.md "A child of fork"). */
extern int symh_status_fork_pe __attribute__((visibility("hidden")));

/* 1 from the end of a successful symh_init to symh_finalize, 0 before, after and in a child of
 * fork: what symh_initialized() answers. The runtime writes it (rt_init.c); it lives here so
 * that a layer below the runtime can read it without calling up (docs/architecture.md). */
extern int symh_status_initialized __attribute__((visibility("hidden")));

/* The one line of a call made before init or after finalize, or in a child of fork, naming
 * `func` (a macro, so that the line's prefix names the file and line that found it). */
#define SYMH_LOG_NOT_INITIALIZED(func)                                                           \
    do {                                                                                         \
        if (symh_status_fork_pe >= 0)                                                            \
            symh_error("%s: this process is a child that fork() made of PE %d after symh_init: " \
                       "a child is no PE, symheap's memory is not mapped in it and its calls "   \
                       "fail (call symheap in the parent, or exec)",                             \
                       (func), symh_status_fork_pe);                                             \
        else                                                                                     \
            symh_error("%s: symheap is not initialized (call symh_init first; it is also an "    \
                       "error after symh_finalize)",                                             \
                       (func));                                                                  \
    } while (0)

/* Ends a public call that must not run before init, after finalize or in a child of fork: logs
 * that line, sets SYMH_ERR_NOT_INITIALIZED and returns `retval`. */
#define SYMH_CHECK_INIT(is_up, retval)                                   \
    do {                                                                 \
        if (__builtin_expect(!(is_up) || symh_status_fork_pe >= 0, 0)) { \
            SYMH_LOG_NOT_INITIALIZED(__func__);                          \
            symh_status_set(SYMH_ERR_NOT_INITIALIZED);                   \
            return retval;                                               \
        }                                                                \
    } while (0)

#endif /* SYMH_CORE_STATUS_H */
