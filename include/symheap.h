/* symheap umbrella header: the whole public C API (docs/api.md), without <mpi.h>. */
#ifndef SYMHEAP_H
#define SYMHEAP_H

#include <symheap/defs.h>
#include <symheap/version.h>
#include <symheap/status.h>
#include <symheap/init.h>
#include <symheap/heap.h>
#include <symheap/ctx.h>
#include <symheap/rma.h>
#include <symheap/signal.h>
#include <symheap/lock.h>
#include <symheap/barrier.h>
#include <symheap/team.h>
#include <symheap/coll.h>
#include <symheap/registration.h>
#include <symheap/vmm.h>
#include <symheap/device.h>
#include <symheap/mr.h>

#endif /* SYMHEAP_H */
