/* tests/device: one misuse of the device allocator per run (argv[1]), for dev_alloc_abort.sh:
 * under SYMH_REGISTRY=error (or the setter, "set-" prefix) each must print its reason and
 * abort; "ok" must exit 0. Singleton: no mpiexec, so an abort ends no MPI job. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    void *p = NULL, *alias, *inner;
    char host[64] = { 0 };
    symh_dev_alloc_opts_t opts = { 1, NULL, 0, "abort-test" };

    if (symh_init() != SYMH_OK)
        return 2;
    if (strncmp(mode, "set-", 4) == 0) {
        symh_registry_set_policy(SYMH_REGISTRY_ERROR);
        mode += 4;
    }
    if (symh_dev_alloc(&p, 32, &opts) != SYMH_OK)
        return 3;
    alias = p;
    inner = (char *)p + 4;
    if (strcmp(mode, "double-free") == 0) {
        symh_dev_free(&p, SYMH_DEVICE_ANY);
        symh_dev_free(&alias, SYMH_DEVICE_ANY);
    } else if (strcmp(mode, "interior") == 0) {
        symh_dev_free(&inner, SYMH_DEVICE_ANY);
    } else if (strcmp(mode, "foreign") == 0) {
        void *f = host;
        symh_dev_free(&f, SYMH_DEVICE_ANY);
    } else if (strcmp(mode, "mismatch") == 0) {
        symh_dev_free(&p, 0);
    } else if (strcmp(mode, "past-end") == 0) {
        symh_dev_memcpy_from_device(host, (char *)p + 1, 32);
    } else if (strcmp(mode, "before-start") == 0) {
        symh_dev_memcpy_from_device(host, (char *)p - 8, 16);
    } else if (strcmp(mode, "unknown-copy") == 0) {
        symh_dev_memcpy_to_device(host + 32, host, 16);
    } else if (strcmp(mode, "replace-freed") == 0) {
        symh_dev_free(&p, SYMH_DEVICE_ANY);
        symh_dev_alloc_replace(&alias, 16, NULL);
    } else if (strcmp(mode, "ok") != 0) {
        return 4;
    }
    symh_dev_free(&p, SYMH_DEVICE_ANY);
    symh_finalize();
    return 0;
}
