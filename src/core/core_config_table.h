/* core: the one table of every SYMH_* environment variable, and of the OpenSHMEM SHMEM_* ones
 * (docs/environment.md is generated from it by symh_info --markdown).
 * X(ID, TYPE, default, choices, help). */
#ifndef SYMH_CORE_CONFIG_TABLE_H
#define SYMH_CORE_CONFIG_TABLE_H

#define SYMH_CONFIG_TABLE(X)                                                                       \
    X(LOG_LEVEL, ENUM, "warn", "error|warn|info|debug|trace", "least severe log messages printed") \
    X(HEAP_SIZE, SIZE, "1g", NULL,                                                                 \
      "symmetric heap bytes per PE; suffixes k, m, g, t are powers of 1024")                       \
    X(HEAP_POPULATE, BOOL, "0", NULL,                                                              \
      "1: symh_init allocates all of each PE's heap (about 0.1 s per GiB), so that a heap the "    \
      "memory cgroup or the machine cannot hold fails symh_init on every PE with one line, not "   \
      "a PE killed by the OOM killer later (docs/heap.md)")                                        \
    X(SYMM_AREA_SIZE, SIZE, "64g", NULL,                                                           \
      "address space reserved after the heap for symmetric registrations (costs no memory)")       \
    X(MAX_SYMM_REGIONS, COUNT, "64", NULL,                                                         \
      "most live symh_buffer_register_symmetric regions per PE")                                   \
    X(HOST_DEVICES, COUNT, "1", NULL,                                                              \
      "host backend: number of host devices each PE presents (1 to 1024)")                         \
    X(DEVICE_BACKEND, ENUM, "auto", "auto|host|hip|cuda",                                          \
      "device backend: auto = CUDA if built and a device is present, else HIP likewise, else "     \
      "host; an explicit hip or cuda that cannot start fails symh_init")                           \
    X(HOSTID, STRING, "", NULL,                                                                    \
      "node identity: PEs with the same value form one node (default: PEs sharing memory)")        \
    X(TRANSPORT, ENUM, "auto", "auto|ipc|ucx|ofi",                                                 \
      "transport for RMA: auto = IPC on the node, a NIC transport (UCX, then libfabric) "          \
      "beyond it")                                                                                 \
    X(NIC, ENUM, "auto", "auto|ucx|ofi",                                                           \
      "NIC transport between nodes under SYMH_TRANSPORT=auto (IPC stays on the node): auto = "     \
      "UCX, then libfabric; ucx or ofi picks one")                                                 \
    X(OFI_PROVIDER, STRING, "tcp;ofi_rxm", NULL,                                                   \
      "libfabric provider of the ofi transport (as fi_info -p names it, e.g. tcp;ofi_rxm, "        \
      "sockets)")                                                                                  \
    X(DISABLE_MIXED_IPC, BOOL, "0", NULL,                                                          \
      "1: node-local peers go through the NIC transport too, not IPC")                             \
    X(NIC_REGISTERED_ONLY, BOOL, "0", NULL,                                                        \
      "1: a NIC transport refuses a local buffer outside the heap, symh_buffer_register and "      \
      "device allocations (SYMH_ERR_NOT_REGISTERED), as rocSHMEM's NIC backends do")               \
    X(REGISTRY, ENUM, "warn", "off|warn|error",                                                    \
      "device allocator misuse (double free, foreign pointer, range past the end): off = no "      \
      "checks, warn = refuse with a warning, error = abort")                                       \
    X(HANG_TIMEOUT, COUNT, "300", NULL,                                                            \
      "seconds a PE waits in a collective, a wait_until or symh_finalize before it logs once "     \
      "where it is and which PEs have not arrived (0 = never)")                                    \
    X(HANG_ABORT, BOOL, "0", NULL,                                                                 \
      "1: after that line, end the whole job (symh_global_exit, exit status 124) instead of "      \
      "waiting on")                                                                                \
    X(TEAMS_MAX, COUNT, "64", NULL,                                                                \
      "most teams alive at once on a PE, SYMH_TEAM_WORLD and SYMH_TEAM_SHARED included (2 to 64)") \
    X(COLL_SCRATCH, SIZE, "64k", NULL,                                                             \
      "bytes of each team's collective scratch in the internal area (4k to 16m); larger "          \
      "reductions are pipelined through it")                                                       \
    X(CHECK_COLLECTIVES, BOOL, "0", NULL,                                                          \
      "1: every team collective first agrees on its arguments; a mismatch fails every member "     \
      "with one line naming the argument and the PEs (costs one exchange per call)")               \
    X(ALLOC_CHECK, BOOL, "1", NULL,                                                                \
      "0: RMA, atomics and wait/test bound a heap range by the whole heap, not by the "            \
      "allocation it starts in (for measuring the check's cost; docs/rma.md)")

/* The job-wide settings: every PE must have the same value (by value, not spelling: 1g and 1024m
 * agree), because peers lay out memory, pick routes or take collective steps from them alike.
 * symh_init compares them in one exchange right after the bootstrap starts and fails on every
 * PE with one line naming the variable and the PEs that differ (rt_init.c). The others are each
 * PE's own (logging, the hang watch, local checks and policies, the node identity). The heap
 * size is compared after SHMEM_SYMMETRIC_SIZE, its twin, has been applied. */
#define SYMH_CONFIG_JOB_WIDE(X) \
    X(HEAP_SIZE)                \
    X(SYMM_AREA_SIZE)           \
    X(MAX_SYMM_REGIONS)         \
    X(TRANSPORT)                \
    X(NIC)                      \
    X(OFI_PROVIDER)             \
    X(DISABLE_MIXED_IPC)        \
    X(TEAMS_MAX)                \
    X(COLL_SCRATCH)             \
    X(CHECK_COLLECTIVES)

/* OpenSHMEM 1.5's variables (docs/openshmem-compat.md), named as the specification names them
 * and honoured beside their SYMH_* twins: a SYMH_* variable that is set wins over its twin. The
 * values follow the specification ("Any" for the flags: set and not 0/no/false/off), so they are
 * read as text and interpreted by core_config.c. X(ID, TYPE, default, choices, help); the name is
 * ID itself. */
#define SYMH_CONFIG_SHMEM_TABLE(X)                                                                \
    X(SHMEM_SYMMETRIC_SIZE, STRING, "", NULL,                                                     \
      "OpenSHMEM twin of SYMH_HEAP_SIZE (which wins when set): bytes, an integer or decimal "     \
      "number with an optional k, m, g or t suffix (either case, powers of 1024), rounded up")    \
    X(SHMEM_DEBUG, STRING, "", NULL,                                                              \
      "OpenSHMEM twin of SYMH_LOG_LEVEL=debug (which wins when set): any value but 0, no, false " \
      "or off turns debug messages on")                                                           \
    X(SHMEM_VERSION, STRING, "", NULL,                                                            \
      "any value but 0, no, false or off: PE 0 prints the library version at symh_init")          \
    X(SHMEM_INFO, STRING, "", NULL,                                                               \
      "any value but 0, no, false or off: PE 0 prints these variables with their values at "      \
      "symh_init")

#endif /* SYMH_CORE_CONFIG_TABLE_H */
