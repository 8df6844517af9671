/* core: small utilities every layer uses: branch hints and the spinning core's pause. */
#ifndef SYMH_CORE_UTIL_H
#define SYMH_CORE_UTIL_H

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

#endif /* SYMH_CORE_UTIL_H */
