/* transport: the executable's data segment as a symmetric object (tl_data.h, docs/globals.md).
 *
 * Why here: the segment is translated by the RMA path (tl_rma.c), mapped by node-local peers
 * (tl_ipc.c) and registered with the NIC (tl_nic.c), all of the transport layer; the memory
 * object comes from the device layer's host backend, like the window's, so the IPC exchange
 * hands it over with the same export/import.
 *
 * The move, at the first symh_init of a process, before the bootstrap starts (so before MPI's
 * threads and every thread of symheap): the executable is the first object dl_iterate_phdr
 * reports; its last writable PT_LOAD less the PT_GNU_RELRO part at its start is the symmetric
 * range [lo, hi). The pages holding it, [page_down(lo), page_up(hi)), are checked in
 * /proc/self/maps to be plain private read-write memory (the loader leaves the page where RELRO
 * ends writable, so a partial first page holds RELRO bytes: they move with their contents and
 * protection unchanged, and the symmetric range still starts after them). Their non-zero pages are
 * written into a fresh memfd by the kernel (pwrite from this memory), then the memfd is mapped
 * over them MAP_SHARED|MAP_FIXED: same address, same contents, same protection. Both calls are
 * raw system calls: the sanitizers' interceptors would check the copy against the globals'
 * redzones and clear the redzones of the new mapping. Nothing between the copy and the mapping
 * writes a global (symheap itself may be linked into the executable); a write by another thread
 * of the application in that window is the application's race (docs/globals.md). The mapping
 * stays for the life of the process (finalize leaves it, a later init reuses it).
 *
 * Not under ThreadSanitizer: its runtime is linked into the executable and keeps its state among
 * the executable's globals, and its background thread writes that state at any moment, so a
 * write between the copy and the mapping would be lost (its trace semaphores then deadlock the
 * process). Where the executable holds that runtime (__tsan_init is defined), the globals stay
 * private and are not symmetric (docs/globals.md). */
#include "transport/tl_data.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_log.h"
#include "transport/tl_ipc.h"

symh_tl_data_state_t symh_tl_data;

static symh_tl_data_segment_t symh_tl_data_seg;
static int symh_tl_data_atfork_set; /* once per process */

/* What the executable's program headers say (the first object of dl_iterate_phdr). */
typedef struct {
    uintptr_t lo, hi; /* the last writable PT_LOAD, relocated */
    uintptr_t relro_lo, relro_hi;
    int found;
} symh_tl_data_phdrs_t;

static int symh_tl_data_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
    symh_tl_data_phdrs_t *p = arg;
    int i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz > 0 &&
            (!p->found || lo > p->lo)) {
            p->lo = lo;
            p->hi = lo + ph->p_memsz;
            p->found = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            p->relro_lo = lo;
            p->relro_hi = lo + ph->p_memsz;
        }
    }
    return 1; /* the executable only */
}

/* Whether [lo, hi) is covered by private read-write mappings, from /proc/self/maps; on a "no"
 * `why` names what is there. */
static int symh_tl_data_plain(uintptr_t lo, uintptr_t hi, char *why, size_t len)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[512];
    uintptr_t at = lo;
    int ok = 0;

    if (maps == NULL) {
        snprintf(why, len, "/proc/self/maps cannot be read: %s", strerror(errno));
        return 0;
    }
    snprintf(why, len, "no mapping at %#" PRIxPTR, at);
    while (at < hi && fgets(line, sizeof(line), maps) != NULL) {
        unsigned long start, end;
        char perms[8];

        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || end <= at)
            continue;
        if (start > at)
            break; /* a hole */
        if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') {
            snprintf(why, len, "[%#lx, %#lx) is mapped %s", start, end, perms);
            break;
        }
        at = end;
    }
    ok = at >= hi;
    fclose(maps);
    return ok;
}

/* Reads the words of one page without the sanitizers' checks: the globals' redzones (ASan) lie
 * between them. Plain loads, nothing a compiler would turn into a library call. */
#if defined(__clang__) || __GNUC__ >= 8
__attribute__((no_sanitize("address", "thread")))
#endif
static int
symh_tl_data_zero(const uint64_t *words, size_t n)
{
    uint64_t any = 0;
    size_t i;

    for (i = 0; i < n; ++i)
        any |= words[i];
    return any == 0;
}

/* Copies the words of one page as symh_tl_data_zero reads them. */
#if defined(__clang__) || __GNUC__ >= 8
__attribute__((no_sanitize("address", "thread")))
#endif
static void
symh_tl_data_copy_page(uint64_t *to, const uint64_t *from, size_t n)
{
    size_t i;

    for (i = 0; i < n; ++i)
        to[i] = from[i];
}

/* In the child of a fork (pthread_atfork): the segment becomes private again, so that parent and
 * child do not share their globals, as fork promises: the pages are copied into fresh private
 * memory, which replaces the shared mapping in one mremap. Only system calls and plain loads and
 * stores (the child may have been forked from any thread). Should it fail (out of memory), the
 * child keeps sharing them with its parent. */
static void symh_tl_data_atfork_child(void)
{
    symh_tl_data_segment_t seg = symh_tl_data_seg;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), at;
    long fresh, moved;

    if (seg.mem == NULL)
        return;
    fresh = syscall(SYS_mmap, 0L, seg.map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0L);
    if (fresh == -1)
        return;
    for (at = 0; at < seg.map_size; at += page)
        if (!symh_tl_data_zero((const uint64_t *)(seg.map_lo + at), page / 8))
            symh_tl_data_copy_page((uint64_t *)(fresh + (long)at),
                                   (const uint64_t *)(seg.map_lo + at), page / 8);
    moved = syscall(SYS_mremap, fresh, seg.map_size, seg.map_size, MREMAP_MAYMOVE | MREMAP_FIXED,
                    seg.map_lo);
    if (moved == -1) {
        syscall(SYS_munmap, fresh, seg.map_size);
        return;
    }
    /* Private again: a symh_init in the child moves the segment anew (its own memfd). */
    symh_dev_host->mem_release(seg.mem);
    memset(&symh_tl_data_seg, 0, sizeof(symh_tl_data_seg));
}

/* Copies the non-zero pages of [map_lo, +map_size) into `fd` at their offsets (the kernel reads
 * them; zero pages stay holes of the memfd and cost no memory). */
static int symh_tl_data_copy(int fd, uintptr_t map_lo, size_t map_size, size_t page)
{
    size_t at = 0, run;

    while (at < map_size) {
        if (symh_tl_data_zero((const uint64_t *)(map_lo + at), page / 8)) {
            at += page;
            continue;
        }
        for (run = page; at + run < map_size &&
                         !symh_tl_data_zero((const uint64_t *)(map_lo + at + run), page / 8);
             run += page)
            ;
        while (run > 0) {
            long n = syscall(SYS_pwrite64, fd, (const void *)(map_lo + at), run, (off_t)at);

            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            at += (size_t)n;
            run -= (size_t)n;
        }
    }
    return 0;
}

/* ThreadSanitizer's entry point, defined by its runtime where the executable holds one: a weak
 * reference, NULL elsewhere (a dlsym that fails would leave glibc's error buffer behind). */
extern void __tsan_init(void) __attribute__((weak));

int symh_tl_data_move(char *message, size_t len)
{
    symh_tl_data_phdrs_t p = { 0 };
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    symh_tl_data_segment_t seg = { 0 };
    char why[160];
    int status, fd = -1;
    long mapped;

    if (&__tsan_init != NULL) {
        symh_debug("symh_init: ThreadSanitizer's runtime keeps its state among the executable's "
                   "globals: they stay private, not symmetric");
        return SYMH_OK;
    }
    dl_iterate_phdr(symh_tl_data_scan, &p);
    if (!p.found)
        return SYMH_OK; /* no writable data: nothing to make symmetric */
    seg.lo = p.lo;
    if (p.relro_hi > p.relro_lo && p.relro_lo <= p.lo && p.relro_hi > p.lo)
        seg.lo = p.relro_hi;
    if (seg.lo >= p.hi)
        return SYMH_OK;
    seg.size = p.hi - seg.lo;
    seg.map_lo = seg.lo & ~(uintptr_t)(page - 1);
    seg.map_size = ((p.hi + page - 1) & ~(uintptr_t)(page - 1)) - seg.map_lo;
    if (symh_tl_data_seg.mem != NULL) {
        /* Moved by an earlier symh_init of this process: the same range, still ours. */
        if (symh_tl_data_seg.lo == seg.lo && symh_tl_data_seg.size == seg.size)
            return SYMH_OK;
        snprintf(message, len,
                 "the executable's data segment moved from [%#" PRIxPTR ", +%zu) to [%#" PRIxPTR
                 ", +%zu) since the last symh_init",
                 symh_tl_data_seg.lo, symh_tl_data_seg.size, seg.lo, seg.size);
        return SYMH_ERR_SYSTEM;
    }
    if (!symh_tl_data_plain(seg.map_lo, seg.map_lo + seg.map_size, why, sizeof(why))) {
        snprintf(message, len,
                 "the executable's globals [%#" PRIxPTR ", +%zu) cannot be made symmetric: %s",
                 seg.lo, seg.size, why);
        return SYMH_ERR_SYSTEM;
    }
    /* The host backend's kind of object (sealed at its size), under a name of its own: it is
     * not the window's, and stays mapped after symh_finalize. */
    fd = memfd_create("globals (symheap)", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)seg.map_size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        snprintf(message, len, "no memory object of %zu bytes for the executable's globals: %s",
                 seg.map_size, strerror(errno));
        status = SYMH_ERR_SYSTEM;
        goto err;
    }
    status = symh_dev_host->import_fd(fd, &seg.mem);
    if (status != SYMH_OK) {
        snprintf(message, len, "no memory object of %zu bytes for the executable's globals",
                 seg.map_size);
        goto err;
    }
    /* From the copy to the mapping nothing writes a global (see the top of the file). */
    if (symh_tl_data_copy(fd, seg.map_lo, seg.map_size, page) != 0) {
        snprintf(message, len, "copying the executable's globals into a memory object: %s",
                 strerror(errno));
        status = SYMH_ERR_SYSTEM;
        goto err;
    }
    mapped = syscall(SYS_mmap, seg.map_lo, seg.map_size, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED, fd, 0L);
    if (mapped == -1 || (uintptr_t)mapped != seg.map_lo) {
        snprintf(message, len, "mapping the executable's globals at %#" PRIxPTR ": %s", seg.map_lo,
                 strerror(errno));
        status = SYMH_ERR_SYSTEM;
        goto err;
    }
    close(fd);
    symh_tl_data_seg = seg;
    if (!symh_tl_data_atfork_set) {
        symh_tl_data_atfork_set = 1;
        if (pthread_atfork(NULL, NULL, symh_tl_data_atfork_child) != 0)
            symh_warn("symh_init: pthread_atfork failed: a child of fork will share the "
                      "executable's globals with its parent");
    }
    symh_debug("symh_init: the executable's globals [%#" PRIxPTR ", +%zu) are symmetric (pages "
               "%#" PRIxPTR " + %zu)",
               seg.lo, seg.size, seg.map_lo, seg.map_size);
    return SYMH_OK;

err:
    if (fd >= 0)
        close(fd);
    if (seg.mem != NULL)
        symh_dev_host->mem_release(seg.mem);
    return status;
}

const symh_tl_data_segment_t *symh_tl_data_segment(void)
{
    return &symh_tl_data_seg;
}

int symh_tl_data_init(void)
{
    int n = symh_boot_info.n_pes, pe;
    char **bases;

    symh_tl_data_fini();
    if (symh_tl_data_seg.size == 0)
        return SYMH_OK;
    bases = calloc((size_t)n, sizeof(*bases));
    if (bases == NULL) {
        symh_error("symh_init: cannot allocate the data bases of %d PEs", n);
        return SYMH_ERR_NO_MEMORY;
    }
    for (pe = 0; pe < n; ++pe)
        bases[pe] = symh_tl_ipc_peer_data(pe);
    symh_tl_data = (symh_tl_data_state_t){ .peer_base = bases, .n_pes = n };
    symh_space.globals.lo = symh_tl_data_seg.lo;
    symh_space.globals.size = symh_tl_data_seg.size;
    return SYMH_OK;
}

void symh_tl_data_fini(void)
{
    free(symh_tl_data.peer_base);
    memset(&symh_tl_data, 0, sizeof(symh_tl_data));
    /* size 0 makes every translation of a global fail */
    symh_space.globals.lo = 0;
    symh_space.globals.size = 0;
}

typedef struct {
    uintptr_t addr;
    int index; /* objects seen; 0 is the executable */
    const char *name;
} symh_tl_data_find_t;

static int symh_tl_data_find(struct dl_phdr_info *info, size_t size, void *arg)
{
    symh_tl_data_find_t *f = arg;
    int i;

    (void)size;
    if (f->index++ == 0)
        return 0;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr - lo < ph->p_memsz) {
            f->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

int symh_tl_data_foreign(uintptr_t addr, char *name, size_t len)
{
    symh_tl_data_find_t f = { .addr = addr };

    if (dl_iterate_phdr(symh_tl_data_find, &f) == 0 || f.name == NULL)
        return 0;
    snprintf(name, len, "%s", f.name[0] != '\0' ? f.name : "the dynamic loader");
    return 1;
}
