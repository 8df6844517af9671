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

#include "core/core_util.h"

extern char **environ;

const symh_config_var_t symh_config_vars[SYMH_CFG_COUNT] = {
#define SYMH_CONFIG_VAR(id, type, def, choices, help) \
    [SYMH_CFG_##id] = { "SYMH_" #id, SYMH_CONFIG_##type, def, choices, help },
    SYMH_CONFIG_TABLE(SYMH_CONFIG_VAR)
#undef SYMH_CONFIG_VAR
};

static struct {
    symh_config_value_t value[SYMH_CFG_COUNT];
    char text[SYMH_CFG_COUNT][SYMH_CONFIG_STRING_MAX];
    int is_set[SYMH_CFG_COUNT];
    int loaded;
} symh_config;

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
    switch (tolower((unsigned char)*p)) {
    case '\0':
        shift = 0;
        break;
    case 'k':
        shift = 10;
        break;
    case 'm':
        shift = 20;
        break;
    case 'g':
        shift = 30;
        break;
    case 't':
        shift = 40;
        break;
    default:
        return SYMH_ERR_INVALID_ARG;
    }
    if (*p != '\0' && p[1] != '\0')
        return SYMH_ERR_INVALID_ARG;
    if (value > (SIZE_MAX >> shift))
        return SYMH_ERR_INVALID_ARG;
    *size = (size_t)(value << shift);
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
