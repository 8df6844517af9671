/* core: fault injection for the tests of the start-up steps' failure paths. Each fallible point
 * of a start-up step (an allocation, a local step that can fail) is a named site; a test arms a
 * countdown on one PE and the n-th site whose name starts with a given prefix fails once, as if
 * that allocation or step had failed. Disarmed, a site costs one predictable branch. */
#ifndef SYMH_CORE_FAULT_H
#define SYMH_CORE_FAULT_H

#include <stddef.h>

/* Nonzero while a countdown is armed (read first, so a disarmed site is one load and branch). */
extern int symh_fault_armed;

int symh_fault_hit_armed(const char *site);

/* 1 when the armed countdown makes `site` fail now (then disarmed), else 0. */
static inline int symh_fault_hit(const char *site)
{
    return __builtin_expect(symh_fault_armed, 0) && symh_fault_hit_armed(site);
}

/* malloc/calloc of a start-up step that fail (NULL) where symh_fault_hit(site) says so. */
void *symh_fault_malloc(size_t bytes, const char *site);
void *symh_fault_calloc(size_t count, size_t size, const char *site);

/* Arms the countdown: of the sites whose name starts with `prefix`, the first `skip` pass and the
 * next fails. `prefix` NULL disarms. */
void symh_fault_arm(const char *prefix, long skip);
/* The site that failed since the last arm (NULL: none yet). */
const char *symh_fault_fired(void);

#endif /* SYMH_CORE_FAULT_H */
