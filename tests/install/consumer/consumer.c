/* consumer: a program built against an installed symheap (tests/install); prints PE i of n. */
#include <stdio.h>

#ifdef SYMH_CONSUMER_MPI
#include <symheap_mpi.h> /* needs MPI's include path from the package or the compiler */
#define SYMH_CONSUMER_KIND "mpi"
#else
#include <symheap.h>
#define SYMH_CONSUMER_KIND "plain"
#endif

int main(int argc, char **argv)
{
    char name[SYMH_MAX_NAME_LEN];
    int status, me, npes, major = -1, minor = -1;

#ifdef SYMH_CONSUMER_MPI
    int rank = -1, size = -1;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "consumer: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    status = symh_init_comm(MPI_COMM_WORLD);
#else
    (void)argc;
    (void)argv;
    status = symh_init();
#endif
    if (status != SYMH_OK) {
        fprintf(stderr, "consumer: init failed: %s\n", symh_status_string(status));
        return 1;
    }
    me = symh_my_pe();
    npes = symh_n_pes();
#ifdef SYMH_CONSUMER_MPI
    if (me != rank || npes != size) {
        fprintf(stderr, "consumer: PE %d of %d but MPI rank %d of %d\n", me, npes, rank, size);
        return 1;
    }
#endif
    /* The installed header and the installed library must be the same release. */
    symh_info_get_version(&major, &minor);
    if (major != SYMH_VERSION_MAJOR || minor != SYMH_VERSION_MINOR) {
        fprintf(stderr, "consumer: library version %d.%d but header %s\n", major, minor,
                SYMH_VERSION_STRING);
        return 1;
    }
    symh_info_get_name(name);
    printf("consumer " SYMH_CONSUMER_KIND ": PE %d of %d, %s\n", me, npes, name);
    symh_finalize();
#ifdef SYMH_CONSUMER_MPI
    MPI_Finalize();
#endif
    return 0;
}
