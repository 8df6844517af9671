/* device: the memory resource base struct and ops table shared by the base resources
 * (dev_mr_base.c), the adaptors (dev_mr_pool.c, dev_mr_adaptors.c) and the per-device table
 * (dev_mr_table.c). */
#ifndef SYMH_DEV_MR_H
#define SYMH_DEV_MR_H

#include <stddef.h>

#include <symheap/mr.h>

/* Every slot is filled. The public calls validate the arguments, so an implementation sees a
 * non-NULL ptr, bytes > 0 and a power-of-two alignment; adaptors call their upstream's ops
 * directly. An implementation logs its own refusals once. */
typedef struct {
    const char *name;
    int (*allocate)(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr);
    int (*deallocate)(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment);
    /* Frees the resource itself (the derived struct), never its upstream. */
    void (*destroy)(symh_mr_t *mr);
} symh_mr_ops_t;

/* The first member of every derived resource. */
struct symh_mr {
    const symh_mr_ops_t *ops;
    symh_mr_t *upstream; /* NULL for a base resource */
    int device;          /* device of a device resource, -1 otherwise */
    int initial;         /* one of the runtime's initial per-device resources */
};

static inline int symh_dev_mr_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    return mr->ops->allocate(mr, bytes, alignment, ptr);
}

static inline int symh_dev_mr_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    return mr->ops->deallocate(mr, ptr, bytes, alignment);
}

static inline int symh_dev_mr_is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* Fills the base struct of a new adaptor over `upstream`. */
void symh_dev_mr_base_init(symh_mr_t *mr, const symh_mr_ops_t *ops, symh_mr_t *upstream);

/* A device resource for a valid device id, without the public checks (the runtime's initial
 * resources). NULL when out of memory. */
symh_mr_t *symh_dev_mr_device_new(int device);

/* The per-device table: `n` slots, each holding a new device resource. fini destroys them and is
 * safe after a failed init. */
int symh_dev_mr_table_init(int n);
void symh_dev_mr_table_fini(void);

/* Whether `mr` is set for some device in the table (destroying it would leave a dangling
 * entry); *device receives the first such device. */
int symh_dev_mr_table_holds(const symh_mr_t *mr, int *device);

/* The resource set for `device`, a device id already checked (0 <= device < the device count):
 * symh_mr_get_per_device without its checks and status, for the device allocator. */
symh_mr_t *symh_dev_mr_table_slot(int device);

#endif /* SYMH_DEV_MR_H */
