/* The counters of the test profiling library (profile_wrap.c). */
#ifndef PROFILE_WRAP_H
#define PROFILE_WRAP_H

enum {
    PROFILE_MALLOC,
    PROFILE_PUTMEM,
    PROFILE_INT_FETCH_ADD,
    PROFILE_BARRIER_ALL,
    PROFILE_LONG_SUM_REDUCE,
    PROFILE_PCONTROL,
    PROFILE_COUNT
};

/* Calls of routine `which` that the profiling library saw on this PE. */
long profile_count(int which);

#endif
