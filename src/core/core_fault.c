/* core: the fault-injection countdown of core_fault.h. Single-threaded use only: tests arm it
 * before symh_init, and the sites are in start-up steps, which run on the initializing thread. */
#include "core/core_fault.h"

#include <stdlib.h>
#include <string.h>

#include "core/core_log.h"

#define SYMH_FAULT_PREFIX_MAX 64

int symh_fault_armed;

static struct {
    char prefix[SYMH_FAULT_PREFIX_MAX];
    long skip;
    const char *fired;
} symh_fault;

int symh_fault_hit_armed(const char *site)
{
    if (strncmp(site, symh_fault.prefix, strlen(symh_fault.prefix)) != 0)
        return 0;
    if (symh_fault.skip-- > 0)
        return 0;
    symh_fault_armed = 0;
    symh_fault.fired = site;
    symh_debug("fault injection: %s fails", site);
    return 1;
}

void *symh_fault_malloc(size_t bytes, const char *site)
{
    return symh_fault_hit(site) ? NULL : malloc(bytes);
}

void *symh_fault_calloc(size_t count, size_t size, const char *site)
{
    return symh_fault_hit(site) ? NULL : calloc(count, size);
}

void symh_fault_arm(const char *prefix, long skip)
{
    symh_fault.fired = NULL;
    symh_fault_armed = 0;
    if (prefix == NULL)
        return;
    strncpy(symh_fault.prefix, prefix, sizeof(symh_fault.prefix) - 1);
    symh_fault.prefix[sizeof(symh_fault.prefix) - 1] = '\0';
    symh_fault.skip = skip;
    symh_fault_armed = 1;
}

const char *symh_fault_fired(void)
{
    return symh_fault.fired;
}
