/* The OpenSHMEM 1.5 API from C11: every routine and type-generic interface of shmem_api_refs.h,
 * compiled (never run). */
#include "shmem_api_refs.h"

void symh_shmem_api_compile_c(shmem_ctx_t ctx, int *rc);
void symh_shmem_api_compile_c(shmem_ctx_t ctx, int *rc)
{
    shmem_api_refs();
    *rc = shmem_api_generics(ctx);
}
