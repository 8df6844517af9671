/* registration: symh_dev_memcpy_transposed, a device copy through a host buffer with two
 * dimensions of a column-major array (ranks 2 to 7) swapped on the host side. */
#include <stdint.h>
#include <string.h>

#include <symheap/device.h>

#include "core/core_status.h"
#include "device/dev.h"
#include "registration/reg_dev_alloc.h"
#include "registration/reg_registry.h"

#define SYMH_TRANSPOSE_RANK_MAX 7

/* Tile edge (in chunks) of the 2-D transposes: a tile of the source and one of the destination
 * stay in L1 for chunks of up to 16 bytes (2 x 16 x 16 x 16 = 8 KiB), even when a power-of-two
 * stride maps every source row of the tile to the same cache sets. Measured (bench_transpose,
 * docs/transpose-and-examples.md): 16 is as fast as 8 and 32 on 4096 x 4096 doubles and 2.3 times
 * faster than no tiling. */
#define SYMH_TRANSPOSE_TILE 16

/* Bigger chunks get smaller tiles; past this size a chunk is a memcpy worth its call and rows
 * are copied in destination order without tiling. */
#define SYMH_TRANSPOSE_TILE_BYTES 16384

/* The swap of dims i < j of a column-major array, reduced to five dimensions: A (the dims before
 * i, contiguous in both arrays, copied as one chunk), I, B (the dims between i and j), J and C
 * (the dims after j). The source has shape (A, I, B, J, C), the destination (A, J, B, I, C). */
typedef struct {
    size_t chunk; /* bytes of one A chunk */
    size_t ni, nb, nj, nc;
} symh_reg_transpose_t;

/* One tile of chunk copies: rows xi of the source, written to the destination where xj is the
 * fastest index, so each destination row of the tile is written contiguously. The chunk size is
 * a compile-time constant in the specialised copies, which the compiler turns into one load and
 * one store. */
#define SYMH_TRANSPOSE_TILE_LOOP(size)                                          \
    for (size_t xi = i0; xi < i1; xi++) {                                       \
        const char *s = src + (xi + j0 * src_j) * (size);                       \
        char *d = dst + (j0 + xi * dst_i) * (size);                             \
        for (size_t xj = j0; xj < j1; xj++, s += src_j * (size), d += (size)) { \
            memcpy(d, s, (size));                                               \
        }                                                                       \
    }

static void symh_reg_transpose_tile(char *dst, const char *src, size_t chunk, size_t src_j,
                                    size_t dst_i, size_t i0, size_t i1, size_t j0, size_t j1)
{
    switch (chunk) {
    case 1:
        SYMH_TRANSPOSE_TILE_LOOP(1)
        break;
    case 2:
        SYMH_TRANSPOSE_TILE_LOOP(2)
        break;
    case 4:
        SYMH_TRANSPOSE_TILE_LOOP(4)
        break;
    case 8:
        SYMH_TRANSPOSE_TILE_LOOP(8)
        break;
    case 16:
        SYMH_TRANSPOSE_TILE_LOOP(16)
        break;
    default:
        SYMH_TRANSPOSE_TILE_LOOP(chunk)
        break;
    }
}

/* A 2-D transpose of an ni x nj matrix of chunks (source: xi fastest, stride src_j between
 * columns; destination: xj fastest, stride dst_i between columns), tiled. */
static void symh_reg_transpose_2d(char *dst, const char *src, size_t chunk, size_t ni, size_t nj,
                                  size_t src_j, size_t dst_i)
{
    size_t tile = SYMH_TRANSPOSE_TILE;

    while (tile > 1 && tile * tile * chunk > SYMH_TRANSPOSE_TILE_BYTES)
        tile /= 2;
    for (size_t i0 = 0; i0 < ni; i0 += tile) {
        size_t i1 = ni - i0 < tile ? ni : i0 + tile;

        for (size_t j0 = 0; j0 < nj; j0 += tile) {
            size_t j1 = nj - j0 < tile ? nj : j0 + tile;

            symh_reg_transpose_tile(dst, src, chunk, src_j, dst_i, i0, i1, j0, j1);
        }
    }
}

static void symh_reg_transpose_run(const symh_reg_transpose_t *t, void *dst, const void *src)
{
    /* Chunk strides: in the source xi moves by 1 and xj by ni * nb; in the destination xj moves
     * by 1 and xi by nj * nb. B and C move both by the same product of extents before them. */
    size_t src_j = t->ni * t->nb, dst_i = t->nj * t->nb;
    size_t plane = t->ni * t->nb * t->nj; /* chunks per C index, the same in both arrays */

    for (size_t c = 0; c < t->nc; c++) {
        for (size_t b = 0; b < t->nb; b++) {
            const char *s = (const char *)src + (c * plane + b * t->ni) * t->chunk;
            char *d = (char *)dst + (c * plane + b * t->nj) * t->chunk;

            symh_reg_transpose_2d(d, s, t->chunk, t->ni, t->nj, src_j, dst_i);
        }
    }
}

/* Reduces the swap of dims i < j (0-based) of an array of extents `ext` to the five-dimension
 * form; the extents are those of the source. */
static void symh_reg_transpose_plan(symh_reg_transpose_t *t, int rank, const size_t *ext,
                                    size_t elem_size, int i, int j)
{
    t->chunk = elem_size;
    t->nb = 1;
    t->nc = 1;
    for (int d = 0; d < i; d++)
        t->chunk *= ext[d];
    t->ni = ext[i];
    for (int d = i + 1; d < j; d++)
        t->nb *= ext[d];
    t->nj = ext[j];
    for (int d = j + 1; d < rank; d++)
        t->nc *= ext[d];
}

/* Validates the arguments; fills the device extents, the 0-based dims to swap (di < dj) and the
 * byte count, or logs one line and returns SYMH_ERR_INVALID_ARG. */
static int symh_reg_transpose_check(int rank, size_t elem_size, const long *lbounds,
                                    const long *ubounds, const int ij[2], const void *dst,
                                    const void *src, const void *host_buf, size_t *ext, int *di,
                                    int *dj, size_t *nbytes)
{
    static const char *const fn = "symh_dev_memcpy_transposed";
    size_t total = elem_size;

    if (rank < 2 || rank > SYMH_TRANSPOSE_RANK_MAX) {
        symh_error("%s: rank %d is not in 2..%d", fn, rank, SYMH_TRANSPOSE_RANK_MAX);
        return SYMH_ERR_INVALID_ARG;
    }
    if (elem_size == 0 || lbounds == NULL || ubounds == NULL || dst == NULL || src == NULL ||
        host_buf == NULL || (rank > 2 && ij == NULL)) {
        symh_error("%s: %s", fn,
                   elem_size == 0     ? "elem_size is 0"
                   : lbounds == NULL  ? "lbounds is NULL"
                   : ubounds == NULL  ? "ubounds is NULL"
                   : dst == NULL      ? "dst is NULL"
                   : src == NULL      ? "src is NULL"
                   : host_buf == NULL ? "host_buf is NULL"
                                      : "ij is NULL (needed for rank > 2)");
        return SYMH_ERR_INVALID_ARG;
    }
    if (rank == 2) {
        *di = 0;
        *dj = 1;
    } else {
        if (ij[0] < 1 || ij[0] > rank || ij[1] < 1 || ij[1] > rank || ij[0] == ij[1]) {
            symh_error("%s: ij = {%d, %d} must be two different dimensions in 1..%d", fn, ij[0],
                       ij[1], rank);
            return SYMH_ERR_INVALID_ARG;
        }
        *di = (ij[0] < ij[1] ? ij[0] : ij[1]) - 1;
        *dj = (ij[0] < ij[1] ? ij[1] : ij[0]) - 1;
    }
    for (int d = 0; d < rank; d++) {
        unsigned long extent;

        if (ubounds[d] < lbounds[d]) {
            symh_error("%s: dimension %d has upper bound %ld below its lower bound %ld", fn, d + 1,
                       ubounds[d], lbounds[d]);
            return SYMH_ERR_INVALID_ARG;
        }
        /* Computed unsigned: ubounds - lbounds may not fit a long, it always fits unsigned. */
        extent = (unsigned long)ubounds[d] - (unsigned long)lbounds[d];
        if (extent >= SIZE_MAX || __builtin_mul_overflow(total, (size_t)extent + 1, &total) ||
            total > (size_t)PTRDIFF_MAX) {
            symh_error("%s: the array (bounds %ld:%ld in dimension %d, elements of %zu bytes) "
                       "is larger than the address space",
                       fn, lbounds[d], ubounds[d], d + 1, elem_size);
            return SYMH_ERR_INVALID_ARG;
        }
        ext[d] = (size_t)extent + 1;
    }
    *nbytes = total;
    return SYMH_OK;
}

int symh_dev_memcpy_transposed(int to_device, int rank, size_t elem_size, const long *lbounds,
                               const long *ubounds, const int ij[2], void *dst, const void *src,
                               void *host_buf)
{
    static const char *const fn = "symh_dev_memcpy_transposed";
    size_t ext[SYMH_TRANSPOSE_RANK_MAX], nbytes = 0;
    symh_reg_transpose_t plan;
    int di = 0, dj = 1, status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    status = symh_reg_transpose_check(rank, elem_size, lbounds, ubounds, ij, dst, src, host_buf,
                                      ext, &di, &dj, &nbytes);
    if (status != SYMH_OK)
        return symh_status_set(status);
    status = symh_dev_alloc_check_copy(fn, to_device ? dst : src, nbytes);
    if (status != SYMH_OK)
        return symh_status_set(status);
    if (to_device) {
        /* The host array has the device extents with di and dj swapped. */
        size_t host_ext[SYMH_TRANSPOSE_RANK_MAX];

        memcpy(host_ext, ext, (size_t)rank * sizeof(ext[0]));
        host_ext[di] = ext[dj];
        host_ext[dj] = ext[di];
        symh_reg_transpose_plan(&plan, rank, host_ext, elem_size, di, dj);
        symh_reg_transpose_run(&plan, host_buf, src);
        if (symh_dev->copy(dst, host_buf, nbytes) != SYMH_OK)
            status = SYMH_ERR_COPY_FAILED;
    } else {
        if (symh_dev->copy(host_buf, src, nbytes) != SYMH_OK) {
            status = SYMH_ERR_COPY_FAILED;
        } else {
            symh_reg_transpose_plan(&plan, rank, ext, elem_size, di, dj);
            symh_reg_transpose_run(&plan, dst, host_buf);
        }
    }
    if (status != SYMH_OK)
        symh_error("%s: the %s backend failed to copy %zu bytes %s %p", fn, symh_dev->name, nbytes,
                   to_device ? "to" : "from", to_device ? dst : src);
    return symh_status_set(status);
}
