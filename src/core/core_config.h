/* core: parsing of the SYMH_* variables declared in core_config_table.h. */
#ifndef SYMH_CORE_CONFIG_H
#define SYMH_CORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/core_config_table.h"

typedef enum {
    SYMH_CONFIG_SIZE,  /* bytes, optional k/m/g/t suffix */
    SYMH_CONFIG_COUNT, /* a decimal count, no suffix; read with symh_config_size */
    SYMH_CONFIG_BOOL,  /* 0/1, yes/no, true/false, on/off */
    SYMH_CONFIG_ENUM,  /* one of the '|'-separated choices; the value is its index */
    SYMH_CONFIG_STRING /* any text up to SYMH_CONFIG_STRING_MAX - 1 bytes */
} symh_config_type_t;

#define SYMH_CONFIG_STRING_MAX  256
#define SYMH_CONFIG_UNKNOWN_MAX 8

typedef enum {
#define SYMH_CONFIG_ID(id, type, def, choices, help) SYMH_CFG_##id,
    SYMH_CONFIG_TABLE(SYMH_CONFIG_ID) SYMH_CONFIG_SHMEM_TABLE(SYMH_CONFIG_ID)
#undef SYMH_CONFIG_ID
        SYMH_CFG_COUNT
} symh_config_id_t;

typedef struct {
    const char *name; /* full variable name, SYMH_ prefix included */
    symh_config_type_t type;
    const char *default_text;
    const char *choices; /* ENUM only */
    const char *help;
} symh_config_var_t;

typedef union {
    size_t size;
    int boolean;
    int choice;
    char string[SYMH_CONFIG_STRING_MAX];
} symh_config_value_t;

/* What one load found: the first invalid value (message names variable and value) and the
 * SYMH_* names in the environment that the table does not declare. */
typedef struct {
    int status;
    char message[512];
    size_t unknown_count; /* may exceed SYMH_CONFIG_UNKNOWN_MAX; the first ones are kept */
    char unknown[SYMH_CONFIG_UNKNOWN_MAX][64];
} symh_config_report_t;

extern const symh_config_var_t symh_config_vars[SYMH_CFG_COUNT];

/* Reads every declared variable from the environment (defaults for unset ones) into the current
 * configuration. On an invalid value the current configuration keeps the defaults for it and
 * the report says why. An OpenSHMEM twin that is set while its SYMH_* variable is not gives that
 * variable its value (SHMEM_SYMMETRIC_SIZE -> SYMH_HEAP_SIZE, SHMEM_DEBUG -> SYMH_LOG_LEVEL
 * debug); an invalid SHMEM_SYMMETRIC_SIZE then fails the load like an invalid SYMH_* value.
 * Never logs: the caller decides which PE speaks. */
int symh_config_load(symh_config_report_t *report);
/* Forgets what was loaded: the next accessor loads the environment again (the tests of the lazy
 * first load). */
void symh_config_forget(void);

/* Parses `text` as a value of `var`; on failure writes a message naming both into `msg`. */
int symh_config_parse(const symh_config_var_t *var, const char *text, symh_config_value_t *value,
                      char *msg, size_t msg_len);

/* "12k" -> 12288. SYMH_ERR_INVALID_ARG for anything else, overflow included. */
int symh_config_parse_size(const char *text, size_t *size);

/* The value's text as set in the environment, or the default when unset (for symh_info). */
const char *symh_config_text(symh_config_id_t id);
int symh_config_is_set(symh_config_id_t id);

size_t symh_config_size(symh_config_id_t id);
int symh_config_bool(symh_config_id_t id);
int symh_config_choice(symh_config_id_t id);
const char *symh_config_string(symh_config_id_t id);

/* OpenSHMEM's "Any" flags (SHMEM_DEBUG, SHMEM_VERSION, SHMEM_INFO): 1 when the variable is set to
 * anything but 0, no, false or off (either case) or the empty string. */
int symh_config_flag(symh_config_id_t id);

/* Whether every PE must have the same value of `id` (SYMH_CONFIG_JOB_WIDE). */
int symh_config_job_wide(symh_config_id_t id);
/* A fingerprint of the value in use (not its spelling): equal values give equal fingerprints.
 * 63 bits, so that a MIN-reduction can compare it and its negation. */
int64_t symh_config_fingerprint(symh_config_id_t id);
/* The value in use as text, for messages: a number for sizes, counts and booleans. */
void symh_config_value_text(symh_config_id_t id, char *buf, size_t len);
/* SHMEM_SYMMETRIC_SIZE's syntax (OpenSHMEM 1.5): a non-negative integer or decimal number
 * ("3.1", ".5") with an optional k, m, g or t suffix in either case (powers of 1024); characters
 * after the suffix are ignored. The byte count is rounded up. SYMH_ERR_INVALID_ARG otherwise. */
int symh_config_parse_shmem_size(const char *text, size_t *size);
/* What SHMEM_VERSION and SHMEM_INFO ask for, printed to `out` by PE 0 at init (the caller passes
 * its PE; other PEs print nothing). */
void symh_config_print_requested(int my_pe, FILE *out);

#endif /* SYMH_CORE_CONFIG_H */
