/* tests/shim: C side of shim_fault.h. */
#include "shim_fault.h"

#include "bootstrap/boot.h"
#include "core/core_fault.h"

void symh_shim_fault_arm(const char *prefix, long skip)
{
    symh_fault_arm(prefix, skip);
}

const char *symh_shim_fault_fired(void)
{
    return symh_fault_fired();
}

void symh_shim_stack_stain(int value)
{
    int stain[2048];
    int i;

    for (i = 0; i < 2048; ++i)
        stain[i] = value;
    /* The stores must reach the stack: the compiler is told the array is read here. */
    __asm__ volatile("" : : "r"(stain) : "memory");
}

int symh_shim_boot_agree(int status, int *first_bad)
{
    return symh_boot_agree(status, first_bad);
}
