/* libFuzzer target: the registry's interval map (src/registration/reg_map.c) against a model
 * that is a plain array of ranges, searched linearly. Every 3 bytes are one step (op, a, b) over
 * a 1024-byte address space near the top of the address space (so that overflowing lengths are
 * reachable): insert [a*4, +b) (b 0: a zero length; op bit: a length that wraps), remove at any
 * byte, take at any byte (b's bits: an accept callback that takes anything, only the start of a
 * range, only a device, or nothing; with or without *found), lookup, next (the lowest range
 * ending after a byte, which crosses leaves whose separator outlived its base), remove_if by a
 * device bit,
 * or a run of up to 64 inserts or removes at a, a + 4, ... (so that a short input fills and
 * empties several B+tree leaves: splits, borrows, merges and the root growing a level and losing
 * it). Aborts when a status, a conflict, a removed, taken or looked-up entry, a call of take's
 * callback, or the count disagrees with the model, or when the map's check() fails. The seed
 * corpus (tests/fuzz/corpus/fuzz_reg_map/) has one input per operation. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "registration/reg_map.h"

#define FUZZ_MAX_LIVE 256
#define FUZZ_LO       (UINTPTR_MAX - 1023) /* the space is [FUZZ_LO, UINTPTR_MAX] */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    uintptr_t base;
    size_t length;
    int device;
} fuzz_range_t;

typedef struct {
    fuzz_range_t live[FUZZ_MAX_LIVE];
    size_t count;
} fuzz_model_t;

static void fuzz_require(int ok)
{
    if (!ok)
        abort();
}

static void fuzz_entry(symh_reg_entry_t *e, uintptr_t base, size_t length, int device)
{
    memset(e, 0, sizeof(*e));
    e->base = base;
    e->length = length;
    e->kind = SYMH_REG_KIND_USER;
    e->device = device;
    e->owner = (void *)(base ^ 0x77);
    e->label[0] = (char)('a' + device % 26);
}

static int fuzz_same(const symh_reg_entry_t *e, const fuzz_range_t *r)
{
    symh_reg_entry_t want;

    fuzz_entry(&want, r->base, r->length, r->device);
    return e->base == want.base && e->length == want.length && e->device == want.device &&
           e->owner == want.owner && e->label[0] == want.label[0] && e->label[1] == '\0' &&
           e->kind == want.kind;
}

/* The model's range holding addr, or -1. */
static long fuzz_model_find(const fuzz_model_t *m, uintptr_t addr)
{
    size_t i;

    for (i = 0; i < m->count; ++i)
        if (addr >= m->live[i].base && addr - m->live[i].base < m->live[i].length)
            return (long)i;
    return -1;
}

/* The lowest model range meeting [base, base + length), or -1. */
static long fuzz_model_overlap(const fuzz_model_t *m, uintptr_t base, size_t length)
{
    long best = -1;
    size_t i;

    for (i = 0; i < m->count; ++i) {
        const fuzz_range_t *r = &m->live[i];

        if (r->base < base + length && base < r->base + r->length &&
            (best < 0 || r->base < m->live[best].base))
            best = (long)i;
    }
    return best;
}

/* The model's lowest range ending after addr, or -1. */
static long fuzz_model_next(const fuzz_model_t *m, uintptr_t addr)
{
    long best = -1;
    size_t i;

    for (i = 0; i < m->count; ++i) {
        const fuzz_range_t *r = &m->live[i];

        if (r->base + (r->length - 1) >= addr && (best < 0 || r->base < m->live[best].base))
            best = (long)i;
    }
    return best;
}

static void fuzz_model_drop(fuzz_model_t *m, size_t i)
{
    m->live[i] = m->live[--m->count];
}

static int fuzz_keep_device(const symh_reg_entry_t *e, void *arg)
{
    return (e->device & *(const int *)arg) == 0;
}

/* One insert, checked against the model (which it updates). */
static void fuzz_insert(symh_reg_map_t *map, fuzz_model_t *model, uintptr_t a, size_t length,
                        int device)
{
    symh_reg_entry_t e, out;
    long hit;
    int status;

    fuzz_entry(&e, a, length, device);
    memset(&out, 0xa5, sizeof(out));
    status = symh_reg_map_insert(map, &e, &out);
    if (length == 0 || length > UINTPTR_MAX - a) {
        fuzz_require(status == SYMH_ERR_INVALID_ARG);
        return;
    }
    hit = fuzz_model_overlap(model, a, length);
    if (hit >= 0) {
        fuzz_require(status == SYMH_ERR_OVERLAP);
        fuzz_require(fuzz_same(&out, &model->live[hit]));
    } else {
        fuzz_require(status == SYMH_OK && model->count < FUZZ_MAX_LIVE);
        model->live[model->count].base = a;
        model->live[model->count].length = length;
        model->live[model->count].device = device;
        model->count++;
    }
}

/* One remove at any byte, checked against the model (which it updates). */
static void fuzz_remove(symh_reg_map_t *map, fuzz_model_t *model, uintptr_t a)
{
    symh_reg_entry_t out;
    long hit = fuzz_model_find(model, a);
    int status = symh_reg_map_remove(map, a, &out);

    if (hit < 0) {
        fuzz_require(status == SYMH_ERR_NOT_REGISTERED);
    } else {
        fuzz_require(status == SYMH_OK && fuzz_same(&out, &model->live[hit]));
        fuzz_model_drop(model, (size_t)hit);
    }
}

/* What take's callback is told, and what it saw. */
typedef struct {
    int mode;       /* 0: take anything, 1: only at a range's start, 2: only `device`, 3: none */
    uintptr_t addr; /* the address given to take */
    int device;     /* mode 2 */
    int calls;      /* how often take called it */
    symh_reg_entry_t seen;
} fuzz_take_t;

static int fuzz_accept(const symh_reg_entry_t *e, void *arg)
{
    fuzz_take_t *t = arg;

    t->calls++;
    t->seen = *e;
    if (t->mode == 1 && e->base != t->addr)
        return SYMH_ERR_NOT_REGISTERED;
    if (t->mode == 2 && e->device != t->device)
        return SYMH_ERR_DEVICE_MISMATCH;
    return t->mode == 3 ? SYMH_ERR_OVERLAP : SYMH_OK;
}

/* One take at any byte with a callback that may refuse, checked against the model (which it
 * updates): the callback runs once, on the model's range, exactly when a range holds `a`;
 * *found gets that range even when the callback refuses, and is left alone when none holds
 * `a`; a refusal is take's status and removes nothing. */
static void fuzz_take(symh_reg_map_t *map, fuzz_model_t *model, uintptr_t a, uint8_t b)
{
    symh_reg_entry_t out, untouched;
    fuzz_take_t t;
    long hit = fuzz_model_find(model, a);
    int with_found = (b & 16) == 0, status, want;

    memset(&t, 0, sizeof(t));
    t.mode = (b >> 2) & 3;
    t.addr = a;
    t.device = b >> 5;
    memset(&out, 0x5c, sizeof(out));
    untouched = out;
    status = symh_reg_map_take(map, a, fuzz_accept, &t, with_found ? &out : NULL);
    if (hit < 0) {
        fuzz_require(status == SYMH_ERR_NOT_REGISTERED && t.calls == 0);
        fuzz_require(memcmp(&out, &untouched, sizeof(out)) == 0);
        return;
    }
    fuzz_require(t.calls == 1 && fuzz_same(&t.seen, &model->live[hit]));
    fuzz_require(!with_found || fuzz_same(&out, &model->live[hit]));
    if (t.mode == 1 && model->live[hit].base != a)
        want = SYMH_ERR_NOT_REGISTERED;
    else if (t.mode == 2 && model->live[hit].device != t.device)
        want = SYMH_ERR_DEVICE_MISMATCH;
    else
        want = t.mode == 3 ? SYMH_ERR_OVERLAP : SYMH_OK;
    fuzz_require(status == want);
    if (status == SYMH_OK)
        fuzz_model_drop(model, (size_t)hit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_model_t model; /* static: no large stack frame per input */
    symh_reg_map_t *map;
    symh_reg_entry_t out;
    size_t i;

    if (symh_reg_map_create(&map) != SYMH_OK)
        abort();
    model.count = 0;
    for (i = 0; i + 3 <= size; i += 3) {
        unsigned op = data[i] % 10, j;
        uintptr_t a = FUZZ_LO + (uintptr_t)data[i + 1] * 4;
        size_t b = data[i + 2];
        long hit;
        int status;

        switch (op) {
        case 0:
        case 1:
        case 2: /* insert; a wrapping length when op is 2 and b is odd */
            fuzz_insert(map, &model, a, op == 2 && (b & 1) ? (size_t)(UINTPTR_MAX - a) + 1 + b : b,
                        (int)(data[i] >> 3));
            break;
        case 3: /* remove at any byte */
            fuzz_remove(map, &model, a + b % 4);
            break;
        case 4: /* take at any byte */
            fuzz_take(map, &model, a + b % 4, (uint8_t)b);
            break;
        case 6: /* next: the lowest range ending after a + b % 4 */
            a += b % 4;
            hit = fuzz_model_next(&model, a);
            status = symh_reg_map_next(map, a, &out);
            if (hit < 0)
                fuzz_require(status == SYMH_ERR_NOT_REGISTERED);
            else
                fuzz_require(status == SYMH_OK && fuzz_same(&out, &model.live[hit]));
            break;
        case 5: /* lookup */
            a += b % 4;
            hit = fuzz_model_find(&model, a);
            status = symh_reg_map_lookup(map, a, &out);
            if (hit < 0)
                fuzz_require(status == SYMH_ERR_NOT_REGISTERED);
            else
                fuzz_require(status == SYMH_OK && fuzz_same(&out, &model.live[hit]));
            break;
        case 7: { /* remove_if: drop every range whose device has one of b's low bits */
            int mask = (int)(b & 7);
            size_t removed = 0, k = 0;

            while (k < model.count) {
                if ((model.live[k].device & mask) != 0) {
                    fuzz_model_drop(&model, k);
                    removed++;
                } else {
                    k++;
                }
            }
            fuzz_require(symh_reg_map_remove_if(map, fuzz_keep_device, &mask) == removed);
            break;
        }
        case 8: /* 1 + b % 64 inserts of 1 - 4 bytes at a, a + 4, ..., up to the top */
            for (j = 0; j <= (b & 63) && a + 4 * (uintptr_t)j >= FUZZ_LO; ++j)
                fuzz_insert(map, &model, a + 4 * (uintptr_t)j, 1 + (b >> 6),
                            (int)((data[i] >> 4) + j) % 8);
            break;
        default: /* 1 + b % 64 removes at a + b / 64, a + 4 + b / 64, ... */
            for (j = 0; j <= (b & 63) && a + 4 * (uintptr_t)j >= FUZZ_LO; ++j)
                fuzz_remove(map, &model, a + 4 * (uintptr_t)j + (b >> 6));
            break;
        }
        fuzz_require(symh_reg_map_count(map) == model.count);
        fuzz_require(symh_reg_map_check(map) == SYMH_OK);
    }
    symh_reg_map_destroy(map);
    return 0;
}
