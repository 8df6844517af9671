/* symheap public header: buffer registration, local (symh_buffer_register) and symmetric
 * (symh_buffer_register_symmetric, collective). The VMM API is <symheap/vmm.h>. */
#ifndef SYMHEAP_REGISTRATION_H
#define SYMHEAP_REGISTRATION_H

#include <stddef.h>

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Local, not collective. Makes [addr, addr + length) usable as the local side of RMA on every
 * transport (never as a remote target). SYMH_ERR_INVALID_ARG: NULL, zero length, addr + length
 * overflowing; SYMH_ERR_OVERLAP: overlaps a registered range (exact duplicate included; the
 * symmetric heap counts as registered); adjacent ranges are fine. */
SYMH_API int symh_buffer_register(void *addr, size_t length);

/* Unregisters the buffer containing addr (its start or any interior address).
 * SYMH_ERR_INVALID_ARG for NULL; SYMH_ERR_NOT_REGISTERED when no registered buffer contains it. */
SYMH_API int symh_buffer_unregister(void *addr);

/* Unregisters every buffer registered with symh_buffer_register. */
SYMH_API void symh_buffer_unregister_all(void);

/* Collective. Makes [addr, addr + length) of memory mapped through the VMM API an RMA target:
 * returns a runtime-managed symmetric address (an alias of the same memory, not addr, at the same
 * offset on every PE) that any PE may pass as dest/source. addr and length are multiples of the
 * minimum granularity, length equal on every PE; the range may cross several adjacent VMM
 * mappings (up to 8). Refused, NULL on EVERY PE with nothing mapped anywhere, when any PE fails:
 * SYMH_ERR_INVALID_ARG (NULL, 0, overflow, misaligned), SYMH_ERR_UNSUPPORTED (not VMM memory:
 * heap, malloc, posix_memalign), SYMH_ERR_OVERLAP (overlaps a range already registered
 * symmetrically), SYMH_ERR_LIMIT (SYMH_MAX_SYMM_REGIONS live regions), SYMH_ERR_NO_MEMORY (no
 * slot left, see SYMH_SYMM_AREA_SIZE), SYMH_ERR_MISMATCH (different lengths). symh_last_error()
 * is then the lowest failing PE's code on every PE, and that PE alone logs why. */
SYMH_API void *symh_buffer_register_symmetric(void *addr, size_t length);

/* Collective. Unmaps the alias symh_buffer_register_symmetric returned, on every PE and in
 * every peer's view, leaving the user's buffer and its data untouched; frees its slot.
 * SYMH_ERR_INVALID_ARG for NULL; SYMH_ERR_NOT_REGISTERED (on every PE) when any PE passes
 * something else than a live alias; SYMH_ERR_MISMATCH when PEs pass different aliases. */
SYMH_API int symh_buffer_unregister_symmetric(void *symm_addr);

SYMH_END_C_DECLS

#endif /* SYMHEAP_REGISTRATION_H */
