/* core: the memory limit of this process's cgroup (core_cgroup.h). Reads only: /proc/self/cgroup
 * for the process's path in each hierarchy, /proc/self/mountinfo for where the memory controller
 * is mounted (cgroup v1: a "cgroup" mount whose super options name "memory"; v2: the "cgroup2"
 * mount, when no v1 memory mount exists: a hybrid host's v2 tree holds no memory controller),
 * then memory.max (v2) or memory.limit_in_bytes (v1) in the cgroup's directory and in each
 * ancestor up to the mount's root, since a limit anywhere above binds too. A mount of a subtree
 * (mountinfo's root field, as containers without a cgroup namespace see it) is stripped from the
 * process's path; a path outside the mounted subtree has no directory here and counts as no
 * limit. */
#include "core/core_cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* v1 reports "no limit" as the page counter's maximum (0x7ffffffffffff000 with 4 KiB pages). */
#define SYMH_CGROUP_UNLIMITED (1ULL << 62)

typedef struct {
    char root[256];  /* the hierarchy's path that is mounted ("/", or a subtree) */
    char point[256]; /* where */
    int version;
} symh_cgroup_mount_t;

/* Decodes mountinfo's octal escapes (\040 for a space) in place. */
static void symh_cgroup_unescape(char *s)
{
    char *out = s;

    for (; *s != '\0'; ++s, ++out) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *out = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *out = *s;
        }
    }
    *out = '\0';
}

/* Whether the comma-separated `list` holds `word`. */
static int symh_cgroup_has(const char *list, const char *word)
{
    size_t n = strlen(word);

    while (*list != '\0') {
        const char *end = strchr(list, ',');
        size_t len = end != NULL ? (size_t)(end - list) : strlen(list);

        if (len == n && strncmp(list, word, n) == 0)
            return 1;
        if (end == NULL)
            break;
        list = end + 1;
    }
    return 0;
}

static FILE *symh_cgroup_open(const char *proc_self, const char *name)
{
    char file[512];

    snprintf(file, sizeof(file), "%s/%s", proc_self, name);
    return fopen(file, "re");
}

/* The memory controller's mount: a v1 one if any, else the first cgroup2 mount. */
static int symh_cgroup_mount(const char *proc_self, symh_cgroup_mount_t *m)
{
    FILE *f = symh_cgroup_open(proc_self, "mountinfo");
    char line[2048];
    int found = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        char root[256], point[256], type[64], options[1024];
        const char *dash = strstr(line, " - ");

        if (dash == NULL || sscanf(line, "%*s %*s %*s %255s %255s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, options) != 2)
            continue;
        if (strcmp(type, "cgroup") == 0 && symh_cgroup_has(options, "memory")) {
            found = 1;
            m->version = 1;
        } else if (strcmp(type, "cgroup2") == 0 && !found) {
            found = 2;
            m->version = 2;
        } else {
            continue;
        }
        symh_cgroup_unescape(root);
        symh_cgroup_unescape(point);
        memcpy(m->root, root, sizeof(root));
        memcpy(m->point, point, sizeof(point));
        if (found == 1)
            break;
    }
    fclose(f);
    return found != 0;
}

/* This process's path in the hierarchy: v1 the line whose controllers name memory, v2 "0::". */
static int symh_cgroup_path(const char *proc_self, int version, char *path, size_t len)
{
    FILE *f = symh_cgroup_open(proc_self, "cgroup");
    char line[1024];
    int found = 0;

    if (f == NULL)
        return 0;
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        char *controllers = strchr(line, ':'), *where;

        if (controllers == NULL || (where = strchr(controllers + 1, ':')) == NULL)
            continue;
        *controllers++ = '\0';
        *where++ = '\0';
        where[strcspn(where, "\n")] = '\0';
        if (version == 1 ? symh_cgroup_has(controllers, "memory")
                         : strcmp(line, "0") == 0 && *controllers == '\0') {
            snprintf(path, len, "%s", where);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* The limit one cgroup directory states; 0 for none ("max", v1's unlimited, or unreadable). */
static unsigned long long symh_cgroup_dir_limit(const char *dir, int version)
{
    char file[1024], text[64];
    unsigned long long limit;
    char *end;
    FILE *f;

    snprintf(file, sizeof(file), "%s/%s", dir,
             version == 2 ? "memory.max" : "memory.limit_in_bytes");
    f = fopen(file, "re");
    if (f == NULL)
        return 0;
    if (fgets(text, sizeof(text), f) == NULL)
        text[0] = '\0';
    fclose(f);
    limit = strtoull(text, &end, 10);
    if (end == text || limit >= SYMH_CGROUP_UNLIMITED)
        return 0;
    return limit;
}

void symh_cgroup_memory(const char *proc_self, symh_cgroup_memory_t *out)
{
    symh_cgroup_mount_t m;
    char path[512], rel[512], dir[800];
    size_t root_len;
    struct stat st;

    memset(out, 0, sizeof(*out));
    if (!symh_cgroup_mount(proc_self, &m))
        return;
    out->version = m.version;
    if (!symh_cgroup_path(proc_self, m.version, path, sizeof(path)))
        return;
    /* The path relative to the mounted subtree ("" for its root). */
    root_len = strcmp(m.root, "/") == 0 ? 0 : strlen(m.root);
    if (strncmp(path, m.root, root_len) != 0 || (path[root_len] != '/' && path[root_len] != '\0'))
        return;
    snprintf(rel, sizeof(rel), "%s", path + root_len);
    for (;;) {
        size_t len = strlen(rel);
        unsigned long long limit;
        char *slash;
        int n;

        while (len > 0 && rel[len - 1] == '/')
            rel[--len] = '\0';
        snprintf(dir, sizeof(dir), "%s%s", m.point, rel);
        limit = symh_cgroup_dir_limit(dir, m.version);
        if (limit != 0 && (out->limit == 0 || limit < out->limit) && stat(dir, &st) == 0) {
            out->limit = limit;
            out->dev = (unsigned long long)st.st_dev;
            out->ino = (unsigned long long)st.st_ino;
            n = snprintf(out->path, sizeof(out->path), "%.*s%s", (int)root_len, m.root,
                         root_len + len == 0 ? "/" : rel);
            if (n < 0)
                out->path[0] = '\0'; /* a longer path is cut short: it only names the limit */
        }
        slash = strrchr(rel, '/');
        if (slash == NULL)
            break;
        *slash = '\0';
    }
}
