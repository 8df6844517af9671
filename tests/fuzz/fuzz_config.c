/* libFuzzer target: the SYMH_* value parsers against a reference model. Sizes must match a
 * 128-bit reference exactly; every parser must survive any text and, on refusal, name the
 * variable and the value. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "core/core_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Digits, then at most one of k m g t (any case), then the end; no overflow of size_t. */
static int symh_fuzz_model_size(const char *text, size_t *out)
{
    unsigned __int128 value = 0;
    const char *p = text;
    unsigned shift = 0;

    if (*p < '0' || *p > '9')
        return SYMH_ERR_INVALID_ARG;
    while (*p >= '0' && *p <= '9') {
        value = value * 10 + (unsigned)(*p++ - '0');
        if (value > SIZE_MAX)
            return SYMH_ERR_INVALID_ARG;
    }
    if (*p != '\0') {
        const char *suffixes = "kmgtKMGT", *hit = strchr(suffixes, *p);

        if (hit == NULL || p[1] != '\0')
            return SYMH_ERR_INVALID_ARG;
        shift = 10 * (unsigned)(1 + (hit - suffixes) % 4);
    }
    value <<= shift;
    if (value > SIZE_MAX)
        return SYMH_ERR_INVALID_ARG;
    *out = (size_t)value;
    return SYMH_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    size_t got = 1, want = 2;
    int id;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    int status = symh_config_parse_size(text, &got);
    if (status != symh_fuzz_model_size(text, &want) || (status == SYMH_OK && got != want))
        abort();

    for (id = 0; id < SYMH_CFG_COUNT; ++id) {
        symh_config_value_t value;
        char msg[512];

        if (symh_config_parse(&symh_config_vars[id], text, &value, msg, sizeof(msg)) != SYMH_OK &&
            strstr(msg, symh_config_vars[id].name) == NULL)
            abort();
    }
    free(text);
    return 0;
}
