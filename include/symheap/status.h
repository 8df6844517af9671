/* symheap public header: status codes (values pinned: docs/api.md), their text, the last error. */
#ifndef SYMHEAP_STATUS_H
#define SYMHEAP_STATUS_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Values are part of the ABI and never change. */
typedef enum {
    SYMH_OK = 0,
    SYMH_ERR_INVALID_ARG = -1,
    SYMH_ERR_NO_MEMORY = -2,
    SYMH_ERR_NOT_INITIALIZED = -3,
    SYMH_ERR_NOT_REGISTERED = -4,
    SYMH_ERR_OVERLAP = -5,
    SYMH_ERR_DEVICE_MISMATCH = -6,
    SYMH_ERR_NOT_CONTIGUOUS = -7,
    SYMH_ERR_COPY_FAILED = -8,
    SYMH_ERR_NO_DEVICE = -9,
    SYMH_ERR_UNSUPPORTED = -10,
    SYMH_ERR_MISMATCH = -11,
    SYMH_ERR_LIMIT = -12,
    SYMH_ERR_TRANSPORT = -13,
    SYMH_ERR_BOOTSTRAP = -14,
    SYMH_ERR_SYSTEM = -15,
    SYMH_ERR_NOT_SYMMETRIC = -16
} symh_status_t;

/* Text of a status code; an unknown code gives "unknown status". Never NULL. */
SYMH_API const char *symh_status_string(int status);

/* The status of this thread's last public call: SYMH_OK after a successful call. */
SYMH_API int symh_last_error(void);

SYMH_END_C_DECLS

#endif /* SYMHEAP_STATUS_H */
