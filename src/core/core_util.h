/* core: small utilities every layer uses: branch hints, the spinning core's pause and the way
 * from a base struct back to the struct that embeds it. */
#ifndef SYMH_CORE_UTIL_H
#define SYMH_CORE_UTIL_H

#include <stddef.h>

#define symh_likely(x)   __builtin_expect(!!(x), 1)
#define symh_unlikely(x) __builtin_expect(!!(x), 0)

/* One pause of a spinning core: lets the sibling hyperthread run, saves power. */
static inline void symh_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* The `type` whose member `member` is at `ptr`: an ops function's base pointer back to the
 * plug-in's own struct (the base is the first member, so this is the same address; the macro says
 * so where a cast would not check it). The comparison inside sizeof is never evaluated: it makes a
 * `ptr` that does not point to the member's type a compile error under -Werror. */
#define symh_container_of(ptr, type, member)                                         \
    ((type *)(void *)((char *)(ptr) + 0 * sizeof((ptr) == &((type *)NULL)->member) - \
                      offsetof(type, member)))

#endif /* SYMH_CORE_UTIL_H */
