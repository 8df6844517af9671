// The C++ side of interop.c (docs/openshmem-conformance.md): the sum and prod reductions over
// std::complex<double> and std::complex<float>, typed (shmem_complexd_sum_reduce) and through
// the overloaded generic names (shmem_sum_reduce), the deprecated shmem_complexd_sum_to_all, and
// the overloads of the bitwise AMOs and reductions for int32_t and int64_t.
#include <complex>
#include <cstdint>

#include <shmem.h>

#include "conf.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static std::complex<double> wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4];

int main()
{
    conf_program = "interop_cxx";
    shmem_init();
    const int npes = shmem_n_pes(), me = shmem_my_pe();
    auto *sd = static_cast<std::complex<double> *>(shmem_malloc(4 * sizeof(std::complex<double>)));
    auto *dd = static_cast<std::complex<double> *>(shmem_malloc(4 * sizeof(std::complex<double>)));
    auto *sf = static_cast<std::complex<float> *>(shmem_malloc(4 * sizeof(std::complex<float>)));
    auto *df = static_cast<std::complex<float> *>(shmem_malloc(4 * sizeof(std::complex<float>)));
    auto *w32 = static_cast<int32_t *>(shmem_calloc(1, sizeof(int32_t)));
    auto *w64 = static_cast<int64_t *>(shmem_calloc(1, sizeof(int64_t)));
    auto *r32 = static_cast<int32_t *>(shmem_malloc(2 * sizeof(int32_t)));
    auto *r64 = static_cast<int64_t *>(shmem_malloc(2 * sizeof(int64_t)));

    // Element k of PE p: (p + 1) + k i. The sum is exact in both types; so is the product of
    // the imaginary units (i^npes) when every real part is 0.
    for (int k = 0; k < 4; k++) {
        sd[k] = std::complex<double>(me + 1, k);
        sf[k] = std::complex<float>(static_cast<float>(me + 1), static_cast<float>(k));
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, dd, sd, 4), 0);
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, df, sf, 4), 0);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ(dd[k].real(), npes * (npes + 1) / 2);
        CHECK_EQ(dd[k].imag(), npes * k);
        CHECK_EQ(df[k].real(), npes * (npes + 1) / 2);
        CHECK_EQ(df[k].imag(), npes * k);
    }
    for (int k = 0; k < 4; k++)
        sd[k] = std::complex<double>(0, 1);
    shmem_barrier_all();
    CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, dd, sd, 4), 0);
    static const int re[4] = { 1, 0, -1, 0 }, im[4] = { 0, 1, 0, -1 }; // i^0 .. i^3
    CHECK_EQ(dd[0].real(), re[npes % 4]);
    CHECK_EQ(dd[0].imag(), im[npes % 4]);
    // The deprecated active-set form over the same types.
    for (int k = 0; k < 4; k++)
        sd[k] = std::complex<double>(me + 1, 1);
    for (long &w : psync)
        w = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_complexd_sum_to_all(dd, sd, 4, 0, 0, npes, wrk, psync);
    CHECK_EQ(dd[3].real(), npes * (npes + 1) / 2);
    CHECK_EQ(dd[3].imag(), npes);

    // The int32_t and int64_t overloads of the bitwise AMOs and reductions.
    shmem_barrier_all();
    shmem_atomic_or(w32, int32_t(1) << (me % 31), 0);
    shmem_atomic_fetch_or(w64, int64_t(1) << (me % 63), 0);
    r32[0] = me + 1;
    r64[0] = me + 1;
    shmem_barrier_all();
    if (me == 0) {
        int32_t want32 = 0;
        int64_t want64 = 0;
        for (int p = 0; p < npes; p++) {
            want32 |= int32_t(1) << (p % 31);
            want64 |= int64_t(1) << (p % 63);
        }
        CHECK_EQ(*w32, want32);
        CHECK_EQ(*w64, want64);
    }
    CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, &r32[1], &r32[0], 1), 0);
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, &r64[1], &r64[0], 1), 0);
    int32_t x = 0;
    int64_t o = 0;
    for (int p = 0; p < npes; p++) {
        x ^= p + 1;
        o |= p + 1;
    }
    CHECK_EQ(r32[1], x);
    CHECK_EQ(r64[1], o);
    shmem_barrier_all();
    shmem_free(r64);
    shmem_free(r32);
    shmem_free(w64);
    shmem_free(w32);
    shmem_free(df);
    shmem_free(sf);
    shmem_free(dd);
    shmem_free(sd);
    conf_done();
    return 0;
}
