/* The OpenSHMEM 1.5 API from C++: every routine of shmem_api_refs.h, and the generic names as
 * overloads, compiled (never run). */
#include "shmem_api_refs.h"

void symh_shmem_api_compile_cxx(shmem_ctx_t ctx, int *rc);
void symh_shmem_api_compile_cxx(shmem_ctx_t ctx, int *rc)
{
    shmem_api_refs();
    *rc = shmem_api_generics(ctx);
}
