/* device: the pool adaptor: chunks taken from the upstream resource (never more than a maximum
 * in all), carved first-fit into blocks. The bookkeeping lives on the host, outside the memory it
 * describes (which may be device memory), as one address-ordered list of blocks. */
#include "device/dev_mr.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/core_status.h"
#include "core/core_util.h"

/* Block sizes are rounded up to this, so block starts keep the default alignment. */
#define SYMH_DEV_MR_POOL_GRAIN ((size_t)SYMH_MR_DEFAULT_ALIGNMENT)

typedef struct symh_dev_mr_pool_block {
    struct symh_dev_mr_pool_block *prev, *next;
    uintptr_t start;
    size_t size;
    size_t chunk; /* index in chunks: blocks of different chunks never merge */
    int used;
} symh_dev_mr_pool_block_t;

typedef struct {
    void *base;
    size_t size;
    size_t alignment;
} symh_dev_mr_pool_chunk_t;

typedef struct {
    symh_mr_t super;
    pthread_mutex_t lock;
    size_t maximum; /* SIZE_MAX: none */
    size_t held;    /* bytes taken from upstream */
    symh_dev_mr_pool_chunk_t *chunks;
    size_t n_chunks, max_chunks;
    symh_dev_mr_pool_block_t *blocks; /* address order */
} symh_dev_mr_pool_t;

static size_t symh_dev_mr_pool_round(size_t bytes)
{
    return (bytes + SYMH_DEV_MR_POOL_GRAIN - 1) & ~(SYMH_DEV_MR_POOL_GRAIN - 1);
}

static symh_dev_mr_pool_block_t *symh_dev_mr_pool_block_new(uintptr_t start, size_t size,
                                                            size_t chunk)
{
    symh_dev_mr_pool_block_t *b = calloc(1, sizeof(*b));

    if (b != NULL) {
        b->start = start;
        b->size = size;
        b->chunk = chunk;
    }
    return b;
}

/* Puts `b` into the address-ordered list. */
static void symh_dev_mr_pool_link(symh_dev_mr_pool_t *pool, symh_dev_mr_pool_block_t *b)
{
    symh_dev_mr_pool_block_t *prev = NULL, *cur = pool->blocks;

    while (cur != NULL && cur->start < b->start) {
        prev = cur;
        cur = cur->next;
    }
    b->prev = prev;
    b->next = cur;
    if (prev != NULL)
        prev->next = b;
    else
        pool->blocks = b;
    if (cur != NULL)
        cur->prev = b;
}

static void symh_dev_mr_pool_unlink(symh_dev_mr_pool_t *pool, symh_dev_mr_pool_block_t *b)
{
    if (b->prev != NULL)
        b->prev->next = b->next;
    else
        pool->blocks = b->next;
    if (b->next != NULL)
        b->next->prev = b->prev;
    free(b);
}

/* Takes a chunk of `size` bytes aligned to `alignment` from upstream, as one free block. */
static int symh_dev_mr_pool_add_chunk(symh_dev_mr_pool_t *pool, size_t size, size_t alignment)
{
    symh_dev_mr_pool_block_t *b;
    void *base;
    int status;

    if (pool->n_chunks == pool->max_chunks) {
        size_t n = pool->max_chunks ? 2 * pool->max_chunks : 8;
        symh_dev_mr_pool_chunk_t *c = realloc(pool->chunks, n * sizeof(*c));

        if (c == NULL)
            goto err_nomem;
        pool->chunks = c;
        pool->max_chunks = n;
    }
    b = symh_dev_mr_pool_block_new(0, size, pool->n_chunks);
    if (b == NULL)
        goto err_nomem;
    status = symh_dev_mr_allocate(pool->super.upstream, size, alignment, &base);
    if (status != SYMH_OK) {
        free(b);
        return status;
    }
    b->start = (uintptr_t)base;
    pool->chunks[pool->n_chunks++] = (symh_dev_mr_pool_chunk_t){ base, size, alignment };
    pool->held += size;
    symh_dev_mr_pool_link(pool, b);
    return SYMH_OK;

err_nomem:
    symh_error("symh_mr_allocate: pool resource: out of host memory for its bookkeeping");
    return SYMH_ERR_NO_MEMORY;
}

/* First fit: a free block holding `size` bytes at an `alignment` boundary, split around it.
 * *found says whether one fitted; SYMH_ERR_NO_MEMORY only when the bookkeeping cannot grow. */
static int symh_dev_mr_pool_carve(symh_dev_mr_pool_t *pool, size_t size, size_t alignment,
                                  void **ptr, int *found)
{
    symh_dev_mr_pool_block_t *b, *head, *tail;
    uintptr_t start;

    *found = 0;
    for (b = pool->blocks; b != NULL; b = b->next) {
        if (b->used)
            continue;
        start = (b->start + alignment - 1) & ~(uintptr_t)(alignment - 1);
        if (start < b->start || start - b->start > b->size || b->size - (start - b->start) < size)
            continue;
        head = tail = NULL;
        if (start > b->start &&
            (head = symh_dev_mr_pool_block_new(b->start, start - b->start, b->chunk)) == NULL)
            goto err_nomem;
        if (start + size < b->start + b->size &&
            (tail = symh_dev_mr_pool_block_new(start + size, b->start + b->size - (start + size),
                                               b->chunk)) == NULL) {
            free(head);
            goto err_nomem;
        }
        b->start = start;
        b->size = size;
        b->used = 1;
        if (head != NULL)
            symh_dev_mr_pool_link(pool, head);
        if (tail != NULL)
            symh_dev_mr_pool_link(pool, tail);
        *ptr = (void *)start;
        *found = 1;
        return SYMH_OK;
    }
    return SYMH_OK;

err_nomem:
    symh_error("symh_mr_allocate: pool resource: out of host memory for its bookkeeping");
    return SYMH_ERR_NO_MEMORY;
}

/* How much to take from upstream for a `need`-byte block: double what the pool holds, but
 * stay within the maximum; 0 when even `need` would pass it. */
static size_t symh_dev_mr_pool_grow_size(const symh_dev_mr_pool_t *pool, size_t need)
{
    size_t room = pool->maximum - pool->held, grow = pool->held;

    if (need > room)
        return 0;
    if (grow > room)
        grow = room;
    return grow > need ? grow : need;
}

static int symh_dev_mr_pool_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    symh_dev_mr_pool_t *pool = symh_container_of(mr, symh_dev_mr_pool_t, super);
    size_t size, grow;
    int status, found;

    if (alignment < SYMH_DEV_MR_POOL_GRAIN)
        alignment = SYMH_DEV_MR_POOL_GRAIN;
    if (bytes > SIZE_MAX / 2 || alignment > SIZE_MAX / 4) {
        symh_error("symh_mr_allocate: pool resource: %zu bytes aligned to %zu are more than any "
                   "pool holds",
                   bytes, alignment);
        return SYMH_ERR_NO_MEMORY;
    }
    size = symh_dev_mr_pool_round(bytes);
    pthread_mutex_lock(&pool->lock);
    status = symh_dev_mr_pool_carve(pool, size, alignment, ptr, &found);
    if (status != SYMH_OK || found)
        goto out;
    grow = symh_dev_mr_pool_grow_size(pool, size);
    if (grow == 0) {
        symh_error("symh_mr_allocate: pool resource: %zu bytes do not fit, and growing would "
                   "take it past its maximum of %zu bytes (%zu held)",
                   bytes, pool->maximum, pool->held);
        status = SYMH_ERR_NO_MEMORY;
        goto out;
    }
    /* A chunk aligned like the block always holds it; when upstream refuses the doubled size,
     * ask for just the block. */
    status = symh_dev_mr_pool_add_chunk(pool, grow, alignment);
    if (status != SYMH_OK && grow > size)
        status = symh_dev_mr_pool_add_chunk(pool, size, alignment);
    if (status == SYMH_OK)
        status = symh_dev_mr_pool_carve(pool, size, alignment, ptr, &found);
out:
    pthread_mutex_unlock(&pool->lock);
    return status;
}

static int symh_dev_mr_pool_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    symh_dev_mr_pool_t *pool = symh_container_of(mr, symh_dev_mr_pool_t, super);
    symh_dev_mr_pool_block_t *b;
    int status = SYMH_OK;

    (void)alignment;
    pthread_mutex_lock(&pool->lock);
    for (b = pool->blocks; b != NULL && b->start < (uintptr_t)ptr; b = b->next)
        ;
    if (b == NULL || b->start != (uintptr_t)ptr || !b->used) {
        symh_error("symh_mr_deallocate: pool resource: %p is not an allocation of this pool", ptr);
        status = SYMH_ERR_NOT_REGISTERED;
        goto out;
    }
    if (symh_dev_mr_pool_round(bytes) != b->size) {
        symh_error("symh_mr_deallocate: pool resource: %p was allocated with a size other than "
                   "%zu bytes",
                   ptr, bytes);
        status = SYMH_ERR_INVALID_ARG;
        goto out;
    }
    b->used = 0;
    if (b->next != NULL && !b->next->used && b->next->chunk == b->chunk) {
        b->size += b->next->size;
        symh_dev_mr_pool_unlink(pool, b->next);
    }
    if (b->prev != NULL && !b->prev->used && b->prev->chunk == b->chunk) {
        b->prev->size += b->size;
        symh_dev_mr_pool_unlink(pool, b);
    }
out:
    pthread_mutex_unlock(&pool->lock);
    return status;
}

static void symh_dev_mr_pool_destroy(symh_mr_t *mr)
{
    symh_dev_mr_pool_t *pool = symh_container_of(mr, symh_dev_mr_pool_t, super);
    symh_dev_mr_pool_block_t *b, *next;
    size_t i, live = 0;

    for (b = pool->blocks; b != NULL; b = next) {
        next = b->next;
        live += b->used;
        free(b);
    }
    if (live > 0)
        symh_warn("symh_mr_destroy: pool resource destroyed with %zu live allocation(s); their "
                  "memory goes back upstream",
                  live);
    for (i = 0; i < pool->n_chunks; ++i)
        symh_dev_mr_deallocate(pool->super.upstream, pool->chunks[i].base, pool->chunks[i].size,
                               pool->chunks[i].alignment);
    free(pool->chunks);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

static const symh_mr_ops_t symh_dev_mr_pool_ops = {
    .name = "pool",
    .allocate = symh_dev_mr_pool_allocate,
    .deallocate = symh_dev_mr_pool_deallocate,
    .destroy = symh_dev_mr_pool_destroy,
};

symh_mr_t *symh_mr_pool_create(symh_mr_t *upstream, size_t initial, size_t maximum)
{
    symh_dev_mr_pool_t *pool;
    int status;

    if (upstream == NULL) {
        symh_error("symh_mr_pool_create: the upstream resource is NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    if (maximum != 0 && initial > maximum) {
        symh_error("symh_mr_pool_create: initial size %zu is larger than the maximum %zu", initial,
                   maximum);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    pool = calloc(1, sizeof(*pool));
    if (pool == NULL) {
        symh_error("symh_mr_pool_create: out of memory");
        symh_status_set(SYMH_ERR_NO_MEMORY);
        return NULL;
    }
    symh_dev_mr_base_init(&pool->super, &symh_dev_mr_pool_ops, upstream);
    pool->maximum = maximum != 0 ? maximum : SIZE_MAX;
    pthread_mutex_init(&pool->lock, NULL);
    if (initial > 0) {
        status = symh_dev_mr_pool_add_chunk(pool, initial, SYMH_DEV_MR_POOL_GRAIN);
        if (status != SYMH_OK) {
            symh_dev_mr_pool_destroy(&pool->super);
            symh_status_set(status);
            return NULL;
        }
    }
    symh_status_set(SYMH_OK);
    return &pool->super;
}
