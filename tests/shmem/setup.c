/* Library setup, exit and query routines (OpenSHMEM 1.5 section 9.1): shmem_init_thread,
 * shmem_my_pe, shmem_n_pes, shmem_pe_accessible, shmem_addr_accessible, shmem_ptr,
 * shmem_info_get_version, shmem_info_get_name, shmem_query_thread, the version constants. */
#include "conf.h"

#include <string.h>

static long global_counter = 7;
static int global_array[16];

int main(void)
{
    conf_program = "setup";
    int provided = -1;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided), 0);
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
          provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK_EQ(queried, provided);
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED);
    CHECK(SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED);
    CHECK(SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE);

    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes >= 1);
    CHECK(me >= 0 && me < npes);

    /* The version: the routine and the constants agree. */
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK_EQ(major, SHMEM_MAJOR_VERSION);
    CHECK_EQ(minor, SHMEM_MINOR_VERSION);
    CHECK_EQ(major, 1);
#if CONF_HAVE_15
    CHECK_EQ(minor, 5);
#endif

    /* The name: NUL-terminated within SHMEM_MAX_NAME_LEN, the vendor string. */
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    CHECK(memchr(name, '\0', sizeof name) != NULL);
    CHECK(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);

    /* Every PE of the program is accessible; so are the heap and the executable's globals. */
    long *heap = shmem_malloc(4 * sizeof(long));
    CHECK(heap != NULL);
    for (int pe = 0; pe < npes; pe++) {
        CHECK_EQ(shmem_pe_accessible(pe), 1);
        CHECK_EQ(shmem_addr_accessible(heap, pe), 1);
        CHECK_EQ(shmem_addr_accessible(&global_counter, pe), 1);
        CHECK_EQ(shmem_addr_accessible(global_array, pe), 1);
    }
    /* A stack variable is not symmetric. */
    int on_stack = 0;
    CHECK_EQ(shmem_addr_accessible(&on_stack, me), 0);

    /* shmem_ptr: where it gives an address, loads through it read the peer's object. */
    heap[0] = 1000 + me;
    global_counter = 2000 + me;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_ptr(heap, pe);
        if (p != NULL)
            CHECK_EQ(*(volatile long *)p, 1000 + pe);
        long *g = shmem_ptr(&global_counter, pe);
        if (g != NULL)
            CHECK_EQ(*(volatile long *)g, 2000 + pe);
    }
    /* On the calling PE itself a pointer, when given, is the object's own address. */
    long *self = shmem_ptr(heap, me);
    if (self != NULL)
        CHECK(self == heap);
    shmem_barrier_all();
    shmem_free(heap);
    conf_done();
    return 0;
}
