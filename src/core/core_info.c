/* core: library identity (symh_info_get_version, symh_info_get_name) and symh_pcontrol. */
#include <stdio.h>

#include <symheap/init.h>
#include <symheap/version.h>

#include "core/core_status.h"

void symh_info_get_version(int *major, int *minor)
{
    if (major == NULL || minor == NULL) {
        symh_error("symh_info_get_version: %s is NULL", major == NULL ? "major" : "minor");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    *major = SYMH_VERSION_MAJOR;
    *minor = SYMH_VERSION_MINOR;
    symh_status_set(SYMH_OK);
}

void symh_info_get_name(char *name)
{
    if (name == NULL) {
        symh_error("symh_info_get_name: name is NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    snprintf(name, SYMH_MAX_NAME_LEN, "%s %s", SYMH_VENDOR_STRING, SYMH_VERSION_STRING);
    symh_status_set(SYMH_OK);
}

void symh_pcontrol(int level, ...)
{
    (void)level;
    symh_status_set(SYMH_OK);
}
