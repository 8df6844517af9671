/* A program written for OpenSHMEM 1.0: start_pes, a barrier, the complex reductions (C only, so
 * here rather than in test_mpi_shmem_compat.cc), and an exit without finalizing
 * (src/shmem/shmem_init.c finalizes at exit). CTest runs it under mpiexec: it passes when the
 * job ends with status 0, and, with SHMEM_INFO, VERSION and DEBUG set, when PE 0 prints what they
 * ask for. */
#include <complex.h>
#include <stdio.h>

#include <symheap.h>

#include <shmem.h>

#define N 100

/* Sum and product of the complex types over the world, in place for the product. */
static int check_complex(long *psync)
{
    double _Complex *zd = symh_calloc(N, sizeof(double _Complex));
    float _Complex *zf = symh_calloc(N, sizeof(float _Complex));
    double _Complex *sd = symh_calloc(N, sizeof(double _Complex));
    int me = symh_my_pe(), n = symh_n_pes(), k, bad = 0;

    if (zd == NULL || zf == NULL || sd == NULL)
        return 1;
    for (k = 0; k < N; ++k) {
        zd[k] = (me + 1) + k * I;
        zf[k] = (k % 2 == 0 ? 1.0f : 0.0f) + (k % 2 == 0 ? 0.0f : 1.0f) * I; /* 1 or i */
    }
    shmem_barrier(0, 0, n, psync);
    shmem_complexd_sum_to_all(sd, zd, N, 0, 0, n, NULL, psync);
    shmem_barrier(0, 0, n, psync);
    shmem_complexf_prod_to_all(zf, zf, N, 0, 0, n, NULL, psync);
    for (k = 0; k < N; ++k) {
        double _Complex want_sum = n * (n + 1) / 2.0 + (double)(k * n) * I;
        /* i^n for the odd elements: 1, i, -1, -i */
        float _Complex i_pow[4] = { 1.0f, I, -1.0f, -I };
        float _Complex want_prod = k % 2 == 0 ? 1.0f : i_pow[n % 4];

        if (sd[k] != want_sum || zf[k] != want_prod) {
            fprintf(stderr, "PE %d element %d: sum %g%+gi, product %g%+gi\n", me, k, creal(sd[k]),
                    cimag(sd[k]), crealf(zf[k]), cimagf(zf[k]));
            bad = 1;
        }
    }
    return bad || psync[0] != 0;
}

int main(void)
{
    long *psync;

    start_pes(0);
    psync = symh_calloc(SHMEM_REDUCE_SYNC_SIZE, sizeof(long));
    if (!symh_initialized() || psync == NULL)
        return 1;
    shmem_barrier(0, 0, symh_n_pes(), psync);
    return check_complex(psync) || psync[0] != 0;
}
