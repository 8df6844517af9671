/* runtime: symmetric registration's hooks for init/finalize (rt_symm.c). */
#ifndef SYMH_RT_SYMM_H
#define SYMH_RT_SYMM_H

/* Forgets every live region; call before the window, the peer views and the registry go. */
void symh_rt_symm_fini(void);

/* Live symmetric regions of this PE (tests). */
int symh_rt_symm_count(void);

#endif /* SYMH_RT_SYMM_H */
