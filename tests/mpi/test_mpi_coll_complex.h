/* The complex reductions of test_mpi_collectives.cc, in C (coll.h declares them for C only). */
#ifndef SYMH_TEST_MPI_COLL_COMPLEX_H
#define SYMH_TEST_MPI_COLL_COMPLEX_H

#include <stddef.h>

#include <symheap/team.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over `team` (call it on its members only): symh_complexd_sum_reduce,
 * symh_complexd_prod_reduce, symh_complexf_sum_reduce and symh_complexf_prod_reduce over
 * `nreduce` elements, each out of place and in place, compared with a reference folded in team
 * order over `members` (world PE numbers, `n_members` of them; every input is a function of the
 * world PE and the index with small integer or half-integer parts, so every partial result is
 * exact). `dest` and `source` are symmetric objects of at least nreduce * sizeof(double _Complex)
 * bytes each. Returns 0; or -1 with what differed in `why`. */
int symh_test_coll_complex(symh_team_t team, const int *members, int n_members, int salt,
                           void *dest, void *source, size_t nreduce, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_TEST_MPI_COLL_COMPLEX_H */
