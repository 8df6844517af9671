/* symheap public header: buffer registration (local). Symmetric registration and the public VMM
 * API join it with the rest of the registration issue. */
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

SYMH_END_C_DECLS

#endif /* SYMHEAP_REGISTRATION_H */
