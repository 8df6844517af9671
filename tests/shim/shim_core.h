/* tests/shim: thin C functions through which the C++ tests reach symheap's internals. */
#ifndef SYMH_SHIM_CORE_H
#define SYMH_SHIM_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- logging: capture expected messages; anything else at warn or error is "unexpected" ---- */
/* Routes symheap's log lines to the shim (call once, before the first test). */
void symh_shim_log_install(void);
/* Starts capturing every line; symh_shim_log_end stops and returns them, '\n'-separated. Each
 * capture starts with a fresh per-call-site log burst (symh_log_rearm). */
void symh_shim_log_begin(void);
const char *symh_shim_log_end(void);
/* Warn/error lines logged outside a capture since the last reset ("" when none). */
const char *symh_shim_log_unexpected(void);
void symh_shim_log_reset_unexpected(void);
/* Logs `msg` at `level` (0 error .. 4 trace) through symheap's logger. */
void symh_shim_log_emit(int level, const char *msg);
/* Logs `msg` from one of two call sites (0 or 1) of its own, for the per-site rate limit. */
void symh_shim_log_emit_site(int site, int level, const char *msg);
/* symh_log_context_push/pop on this thread (the context is allocated by push, freed by pop);
 * pop returns the error lines logged under it. */
void *symh_shim_log_context_push(const char *func, int pe);
unsigned symh_shim_log_context_pop(void *ctx);
/* symh_log_flush: prints pending "similar lines suppressed" summaries, resets every site. */
void symh_shim_log_flush(void);
void symh_shim_log_set_level(int level);
int symh_shim_log_get_level(void);
/* Calls `hook` with each line the shim receives, captured or not (NULL: none), from the thread
 * that logs it: a test learns that a line was logged while the logging call still runs. */
void symh_shim_log_set_hook(void (*hook)(const char *line));
/* Sends lines to stderr again (the default). */
void symh_shim_log_uninstall(void);

/* ---- the clock of the log rate limit and the hang watch (core_clock.h) ---- */
/* Replaces it with a fake clock that starts at `start_ns` and moves by `step_ns` at each read
 * (0: only symh_shim_clock_advance moves it), so that time-dependent behaviour is checked by
 * counts. symh_shim_clock_real puts CLOCK_MONOTONIC back. */
void symh_shim_clock_fake(uint64_t start_ns, uint64_t step_ns);
void symh_shim_clock_advance(uint64_t ns);
void symh_shim_clock_real(void);

/* ---- configuration ---- */
int symh_shim_config_parse_size(const char *text, size_t *size);
/* SHMEM_SYMMETRIC_SIZE's syntax: decimals allowed ("3.1M"), rounded up to a byte. */
int symh_shim_config_parse_shmem_size(const char *text, size_t *size);
/* Loads the environment; `message` gets the first invalid value's message, `unknown` the
 * unknown SYMH_* names separated by spaces. Returns the load status. */
int symh_shim_config_load(char *message, size_t message_len, char *unknown, size_t unknown_len);
/* The current value of variable `name`: numbers (size, bool, enum index) in *number, strings in
 * `text`. -1 when the name is not declared. */
int symh_shim_config_value(const char *name, unsigned long long *number, char *text,
                           size_t text_len);
/* Forgets the loaded configuration: the next symh_shim_config_value loads it lazily. */
void symh_shim_config_forget(void);
/* Number of declared variables and the name of the i-th. */
int symh_shim_config_count(void);
const char *symh_shim_config_name(int index);

/* ---- bootstrap collectives (valid while symheap is initialized) ---- */
int symh_shim_boot_allgather(const void *in, void *out, size_t bytes);
int symh_shim_boot_alltoall(const void *in, void *out, size_t bytes);
int symh_shim_boot_bcast(void *buf, size_t bytes, int root);
int symh_shim_boot_barrier(void);

/* ---- the allocation map (core_amap.h) ---- */
/* A map of [0, size) (a granule multiple), all free; NULL on failure. */
void *symh_shim_amap_create(size_t size);
void symh_shim_amap_destroy(void *map);
void symh_shim_amap_mark(void *map, size_t offset, size_t bytes);
void symh_shim_amap_unmark(void *map, size_t offset, size_t bytes);
void symh_shim_amap_resize(void *map, size_t offset, size_t old_bytes, size_t new_bytes);
/* symh_amap_check: 0 inside, 1 freed, 2 past the end (with the allocation it starts in). */
int symh_shim_amap_check(const void *map, size_t offset, size_t bytes, size_t *alloc_offset,
                         size_t *alloc_bytes);
/* The inline part (symh_amap_fast_ok). */
int symh_shim_amap_fast_ok(const void *map, size_t offset, size_t bytes);

/* ---- the memory cgroup (core_cgroup.h) ---- */
/* symh_cgroup_memory for the /proc directory `proc_self`: the limit (0: none); the limiting
 * cgroup's path into `path` and the controller's version into *version. */
unsigned long long symh_shim_cgroup_memory(const char *proc_self, char *path, size_t len,
                                           int *version);

/* ---- transports ---- */
/* The NIC transports built into this library ("ucx ofi ", "" when none). */
const char *symh_shim_tl_nic_built(void);
/* This thread's counts of the NIC local side's path (symh_tl_nic_counts, tl_nic.h): local sides
 * looked up in the registry, of those answered by the thread's last hit, transfers a transport
 * posted with the memory handle or descriptor it was given, and the transports' waits for
 * completion. */
void symh_shim_nic_counts(uint64_t *lookups, uint64_t *hint_hits, uint64_t *posted,
                          uint64_t *waits);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_CORE_H */
