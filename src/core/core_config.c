/* core: parsing of the SYMH_* variables; the only getenv of the library lives here. */
#include "core/core_config.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <symheap/status.h>
#include <symheap/version.h>

#include "core/core_util.h"

extern char **environ;

const symh_config_var_t symh_config_vars[SYMH_CFG_COUNT] = {
#define SYMH_CONFIG_VAR(id, type, def, choices, help) \
    [SYMH_CFG_##id] = { "SYMH_" #id, SYMH_CONFIG_##type, def, choices, help },
    SYMH_CONFIG_TABLE(SYMH_CONFIG_VAR)
#undef SYMH_CONFIG_VAR
#define SYMH_CONFIG_SHMEM_VAR(id, type, def, choices, help) \
    [SYMH_CFG_##id] = { #id, SYMH_CONFIG_##type, def, choices, help },
        SYMH_CONFIG_SHMEM_TABLE(SYMH_CONFIG_SHMEM_VAR)
#undef SYMH_CONFIG_SHMEM_VAR
};

static struct {
    symh_config_value_t value[SYMH_CFG_COUNT];
    char text[SYMH_CFG_COUNT][SYMH_CONFIG_STRING_MAX];
    int is_set[SYMH_CFG_COUNT];
    int loaded;
} symh_config;

/* The power of 1024 a size's suffix stands for: none (shift 0), or one of k, m, g, t in either
 * case and nothing after it; SYMH_ERR_INVALID_ARG for anything else. */
static int symh_config_size_suffix(const char *p, unsigned *shift)
{
    static const char suffixes[] = "kmgt";
    const char *at;

    if (*p == '\0') {
        *shift = 0;
        return SYMH_OK;
    }
    at = strchr(suffixes, tolower((unsigned char)*p));
    if (at == NULL || p[1] != '\0')
        return SYMH_ERR_INVALID_ARG;
    *shift = 10 * (unsigned)(at - suffixes + 1);
    return SYMH_OK;
}

int symh_config_parse_size(const char *text, size_t *size)
{
    const char *p = text;
    unsigned long long value = 0;
    unsigned shift = 0;

    if (text == NULL || !isdigit((unsigned char)*p))
        return SYMH_ERR_INVALID_ARG;
    for (; isdigit((unsigned char)*p); ++p) {
        unsigned digit = (unsigned)(*p - '0');

        if (value > (ULLONG_MAX - digit) / 10)
            return SYMH_ERR_INVALID_ARG;
        value = value * 10 + digit;
    }
    if (symh_config_size_suffix(p, &shift) != SYMH_OK)
        return SYMH_ERR_INVALID_ARG;
    if (value > (SIZE_MAX >> shift))
        return SYMH_ERR_INVALID_ARG;
    *size = (size_t)(value << shift);
    return SYMH_OK;
}

int symh_config_parse_shmem_size(const char *text, size_t *size)
{
    /* Exact in integers: whole * 2^shift + ceil(fraction * 2^shift), the fraction kept as
     * frac / 10^frac_digits with at most 18 digits (a nonzero digit past them rounds up). */
    unsigned long long whole = 0, frac = 0, scale = 1;
    unsigned __int128 bytes, frac_bytes;
    int digits = 0, frac_digits = 0, frac_rest = 0;
    unsigned shift = 0;
    const char *p = text;

    if (text == NULL)
        return SYMH_ERR_INVALID_ARG;
    for (; isdigit((unsigned char)*p); ++p, ++digits) {
        unsigned digit = (unsigned)(*p - '0');

        if (whole > (ULLONG_MAX - digit) / 10)
            return SYMH_ERR_INVALID_ARG;
        whole = whole * 10 + digit;
    }
    if (*p == '.') {
        for (++p; isdigit((unsigned char)*p); ++p, ++digits) {
            if (frac_digits < 18) {
                frac = frac * 10 + (unsigned)(*p - '0');
                scale *= 10;
                ++frac_digits;
            } else if (*p != '0') {
                frac_rest = 1;
            }
        }
    }
    if (digits == 0)
        return SYMH_ERR_INVALID_ARG;
    if (symh_config_size_suffix(p, &shift) != SYMH_OK)
        return SYMH_ERR_INVALID_ARG;
    frac_bytes = ((unsigned __int128)frac << shift) + frac_rest;
    bytes = ((unsigned __int128)whole << shift) + (frac_bytes + scale - 1) / scale;
    if (bytes > SIZE_MAX)
        return SYMH_ERR_INVALID_ARG;
    *size = (size_t)bytes;
    return SYMH_OK;
}

/* A decimal count up to INT_MAX: no sign, no suffix, no spaces. */
static int symh_config_parse_count(const char *text, size_t *count)
{
    size_t value = 0;
    const char *p;

    if (*text == '\0')
        return SYMH_ERR_INVALID_ARG;
    for (p = text; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9')
            return SYMH_ERR_INVALID_ARG;
        value = value * 10 + (size_t)(*p - '0');
        if (value > INT_MAX)
            return SYMH_ERR_INVALID_ARG;
    }
    *count = value;
    return SYMH_OK;
}

static int symh_config_parse_bool(const char *text, int *value)
{
    static const char *const yes[] = { "1", "y", "yes", "true", "on" };
    static const char *const no[] = { "0", "n", "no", "false", "off" };
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); ++i) {
        if (strcasecmp(text, yes[i]) == 0) {
            *value = 1;
            return SYMH_OK;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *value = 0;
            return SYMH_OK;
        }
    }
    return SYMH_ERR_INVALID_ARG;
}

static int symh_config_parse_enum(const char *choices, const char *text, int *value)
{
    size_t len = strlen(text);
    const char *p = choices;
    int index = 0;

    while (*p != '\0') {
        size_t choice_len = strcspn(p, "|");

        if (len > 0 && choice_len == len && strncasecmp(p, text, len) == 0) {
            *value = index;
            return SYMH_OK;
        }
        p += choice_len;
        if (*p == '|')
            ++p;
        ++index;
    }
    return SYMH_ERR_INVALID_ARG;
}

int symh_config_parse(const symh_config_var_t *var, const char *text, symh_config_value_t *value,
                      char *msg, size_t msg_len)
{
    const char *expected = NULL;
    int status = SYMH_ERR_INVALID_ARG;

    switch (var->type) {
    case SYMH_CONFIG_SIZE:
        status = symh_config_parse_size(text, &value->size);
        expected = "a byte count with an optional k, m, g or t suffix (powers of 1024)";
        break;
    case SYMH_CONFIG_COUNT:
        status = symh_config_parse_count(text, &value->size);
        expected = "a decimal count from 0 to 2147483647";
        break;
    case SYMH_CONFIG_BOOL:
        status = symh_config_parse_bool(text, &value->boolean);
        expected = "0 or 1 (also no/yes, false/true, off/on)";
        break;
    case SYMH_CONFIG_ENUM:
        status = symh_config_parse_enum(var->choices, text, &value->choice);
        expected = var->choices;
        break;
    case SYMH_CONFIG_STRING:
        if (strlen(text) < SYMH_CONFIG_STRING_MAX) {
            memcpy(value->string, text, strlen(text) + 1);
            status = SYMH_OK;
        }
        expected = "text shorter than 256 bytes";
        break;
    }
    if (status != SYMH_OK && msg != NULL)
        snprintf(msg, msg_len, "invalid value %s='%s': expected %s", var->name, text, expected);
    return status;
}

static int symh_config_declared(const char *entry)
{
    size_t name_len = strcspn(entry, "=");
    int id;

    for (id = 0; id < SYMH_CFG_COUNT; ++id) {
        const char *name = symh_config_vars[id].name;

        if (strlen(name) == name_len && strncmp(name, entry, name_len) == 0)
            return 1;
    }
    return 0;
}

static int symh_config_flag_text(const char *text)
{
    static const char *const off[] = { "", "0", "n", "no", "false", "off" };
    size_t i;

    for (i = 0; i < sizeof(off) / sizeof(off[0]); ++i)
        if (strcasecmp(text, off[i]) == 0)
            return 0;
    return 1;
}

/* The OpenSHMEM twins (core_config_table.h): one that is set gives its SYMH_* variable its value
 * unless that variable is set itself. The SYMH_* text becomes what the value means in SYMH_*
 * syntax, so symh_info and the messages that quote it stay true. */
static void symh_config_apply_twins(symh_config_report_t *report)
{
    static const char *const expected = "a byte count, integer or decimal, with an optional k, m, "
                                        "g or t suffix (powers of 1024)";
    size_t size;

    if (symh_config.is_set[SYMH_CFG_SHMEM_SYMMETRIC_SIZE] &&
        !symh_config.is_set[SYMH_CFG_HEAP_SIZE]) {
        const char *text = symh_config.text[SYMH_CFG_SHMEM_SYMMETRIC_SIZE];

        if (symh_config_parse_shmem_size(text, &size) == SYMH_OK) {
            symh_config.value[SYMH_CFG_HEAP_SIZE].size = size;
            snprintf(symh_config.text[SYMH_CFG_HEAP_SIZE], SYMH_CONFIG_STRING_MAX, "%zu", size);
        } else if (report->status == SYMH_OK) {
            report->status = SYMH_ERR_INVALID_ARG;
            snprintf(report->message, sizeof(report->message),
                     "invalid value SHMEM_SYMMETRIC_SIZE='%s': expected %s", text, expected);
        }
    }
    if (symh_config_flag_text(symh_config.text[SYMH_CFG_SHMEM_DEBUG]) &&
        !symh_config.is_set[SYMH_CFG_LOG_LEVEL]) {
        symh_config_parse(&symh_config_vars[SYMH_CFG_LOG_LEVEL], "debug",
                          &symh_config.value[SYMH_CFG_LOG_LEVEL], NULL, 0);
        snprintf(symh_config.text[SYMH_CFG_LOG_LEVEL], SYMH_CONFIG_STRING_MAX, "debug");
    }
}

static void symh_config_find_unknown(symh_config_report_t *report)
{
    char **env;

    for (env = environ; env != NULL && *env != NULL; ++env) {
        size_t name_len;

        if (strncmp(*env, "SYMH_", 5) != 0 || symh_config_declared(*env))
            continue;
        if (report->unknown_count < SYMH_CONFIG_UNKNOWN_MAX) {
            name_len = strcspn(*env, "=");
            if (name_len >= sizeof(report->unknown[0]))
                name_len = sizeof(report->unknown[0]) - 1;
            memcpy(report->unknown[report->unknown_count], *env, name_len);
            report->unknown[report->unknown_count][name_len] = '\0';
        }
        ++report->unknown_count;
    }
}

/* Serializes loads: the lazy first load of an accessor may race with another thread's (a
 * program's threads reading the configuration before symh_init), and with symh_init's. */
static pthread_mutex_t symh_config_lock = PTHREAD_MUTEX_INITIALIZER;

static int symh_config_load_locked(symh_config_report_t *report)
{
    int id;

    memset(report, 0, sizeof(*report));
    for (id = 0; id < SYMH_CFG_COUNT; ++id) {
        const symh_config_var_t *var = &symh_config_vars[id];
        const char *env = getenv(var->name);
        int status;

        /* The defaults of the table parse by construction. */
        status = symh_config_parse(var, var->default_text, &symh_config.value[id], NULL, 0);
        (void)status;
        symh_config.is_set[id] = env != NULL;
        snprintf(symh_config.text[id], sizeof(symh_config.text[id]), "%s",
                 env != NULL ? env : var->default_text);
        if (env == NULL)
            continue;
        symh_config_value_t parsed;
        if (report->status == SYMH_OK) {
            status = symh_config_parse(var, env, &parsed, report->message, sizeof(report->message));
        } else {
            status = symh_config_parse(var, env, &parsed, NULL, 0);
        }
        if (status == SYMH_OK)
            symh_config.value[id] = parsed;
        else
            report->status = status;
    }
    symh_config_apply_twins(report);
    symh_config_find_unknown(report);
    __atomic_store_n(&symh_config.loaded, 1, __ATOMIC_RELEASE);
    return report->status;
}

int symh_config_load(symh_config_report_t *report)
{
    int status;

    pthread_mutex_lock(&symh_config_lock);
    status = symh_config_load_locked(report);
    pthread_mutex_unlock(&symh_config_lock);
    return status;
}

void symh_config_forget(void)
{
    pthread_mutex_lock(&symh_config_lock);
    __atomic_store_n(&symh_config.loaded, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&symh_config_lock);
}

/* Accessors load the environment on first use so code running before init sees sane values;
 * the first load happens once however many threads ask at the same time. */
static const symh_config_value_t *symh_config_value(symh_config_id_t id)
{
    if (symh_unlikely(!__atomic_load_n(&symh_config.loaded, __ATOMIC_ACQUIRE))) {
        symh_config_report_t report;

        pthread_mutex_lock(&symh_config_lock);
        if (!symh_config.loaded)
            symh_config_load_locked(&report);
        pthread_mutex_unlock(&symh_config_lock);
    }
    return &symh_config.value[id];
}

const char *symh_config_text(symh_config_id_t id)
{
    (void)symh_config_value(id);
    return symh_config.text[id];
}

int symh_config_is_set(symh_config_id_t id)
{
    (void)symh_config_value(id);
    return symh_config.is_set[id];
}

size_t symh_config_size(symh_config_id_t id)
{
    return symh_config_value(id)->size;
}

int symh_config_bool(symh_config_id_t id)
{
    return symh_config_value(id)->boolean;
}

int symh_config_choice(symh_config_id_t id)
{
    return symh_config_value(id)->choice;
}

const char *symh_config_string(symh_config_id_t id)
{
    return symh_config_value(id)->string;
}

int symh_config_flag(symh_config_id_t id)
{
    return symh_config_is_set(id) && symh_config_flag_text(symh_config_text(id));
}

int symh_config_job_wide(symh_config_id_t id)
{
    switch (id) {
#define SYMH_CONFIG_JOB_WIDE_CASE(id) case SYMH_CFG_##id:
        SYMH_CONFIG_JOB_WIDE(SYMH_CONFIG_JOB_WIDE_CASE)
#undef SYMH_CONFIG_JOB_WIDE_CASE
        return 1;
    default:
        return 0;
    }
}

/* FNV-1a over the bytes of the value. */
static uint64_t symh_config_fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i;

    for (i = 0; i < len; ++i)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

int64_t symh_config_fingerprint(symh_config_id_t id)
{
    const symh_config_value_t *v = symh_config_value(id);
    uint64_t h = symh_config_fnv(14695981039346656037ULL, &id, sizeof(id));
    int64_t n;

    switch (symh_config_vars[id].type) {
    case SYMH_CONFIG_SIZE:
    case SYMH_CONFIG_COUNT:
        n = (int64_t)v->size;
        break;
    case SYMH_CONFIG_BOOL:
        n = v->boolean != 0;
        break;
    case SYMH_CONFIG_ENUM:
        n = v->choice;
        break;
    default:
        return (int64_t)(symh_config_fnv(h, v->string, strlen(v->string)) >> 1);
    }
    return (int64_t)(symh_config_fnv(h, &n, sizeof(n)) >> 1);
}

void symh_config_value_text(symh_config_id_t id, char *buf, size_t len)
{
    const symh_config_value_t *v = symh_config_value(id);

    switch (symh_config_vars[id].type) {
    case SYMH_CONFIG_SIZE:
    case SYMH_CONFIG_COUNT:
        snprintf(buf, len, "%zu", v->size);
        break;
    case SYMH_CONFIG_BOOL:
        snprintf(buf, len, "%d", v->boolean != 0);
        break;
    case SYMH_CONFIG_ENUM:
        snprintf(buf, len, "%s", symh_config_text(id));
        break;
    default:
        snprintf(buf, len, "%s", v->string);
        break;
    }
}

void symh_config_print_requested(int my_pe, FILE *out)
{
    char line[2 * SYMH_CONFIG_STRING_MAX + 512];
    int id;

    if (my_pe != 0 ||
        !(symh_config_flag(SYMH_CFG_SHMEM_VERSION) || symh_config_flag(SYMH_CFG_SHMEM_INFO)))
        return;
    /* The output the specification asks for goes to the caller's FILE, not to the log. */
    snprintf(line, sizeof(line), "symheap %s (OpenSHMEM 1.5)\n", SYMH_VERSION_STRING);
    fputs(line, out);
    if (symh_config_flag(SYMH_CFG_SHMEM_INFO)) {
        fputs("environment variables (name, current value, meaning):\n", out);
        for (id = 0; id < SYMH_CFG_COUNT; ++id) {
            const symh_config_var_t *var = &symh_config_vars[id];

            snprintf(line, sizeof(line), "  %-24s \"%s\"%s\n      %s\n", var->name,
                     symh_config_text((symh_config_id_t)id),
                     symh_config_is_set((symh_config_id_t)id) ? " (set)" : "", var->help);
            fputs(line, out);
        }
    }
    fflush(out);
}
