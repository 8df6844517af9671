#!/bin/sh
# cross_impl.sh BUILD_DIR: builds tests/shmem/cross_impl.c against symheap (BUILD_DIR/tools/oshcc
# when present, else mpicc with the project's include/ first and BUILD_DIR's libsymheap) and
# against Open MPI's OSHMEM (/usr/bin/oshcc), runs both at 2 PEs on one node and compares PE 0's
# output: the same lines under both, or exit 1 with the diff. Exit 77 (skipped) when
# /usr/bin/oshcc is absent.
set -u
build=$(cd "${1:?usage: cross_impl.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$here/cross_impl.c
root=$(cd "$here/../.." && pwd)

if [ ! -x /usr/bin/oshcc ] || [ ! -x /usr/bin/oshrun ]; then
    echo "cross_impl.sh: no /usr/bin/oshcc (Open MPI's OSHMEM): skipped"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -x "$build/tools/oshcc" ]; then
    "$build/tools/oshcc" -std=c11 -Wall -Wextra -Werror "$src" -o "$tmp/symheap" || exit 1
else
    mpicc -std=c11 -Wall -Wextra -Werror -I"$root/include" -I"$build/include" "$src" \
        -o "$tmp/symheap" -L"$build" -lsymheap -Wl,-rpath,"$build" || exit 1
fi
/usr/bin/oshcc -std=c11 -Wall -Wextra -Werror "$src" -o "$tmp/oshmem" || exit 1

# Only stdout is compared (the runtimes' notices go to stderr).
mpiexec -n 2 --oversubscribe "$tmp/symheap" >"$tmp/symheap.out" || {
    cat "$tmp/symheap.out"
    echo "cross_impl.sh: the symheap build failed" >&2
    exit 1
}
/usr/bin/oshrun --mca memory ^patcher --oversubscribe -np 2 "$tmp/oshmem" >"$tmp/oshmem.out" || {
    cat "$tmp/oshmem.out"
    echo "cross_impl.sh: the OSHMEM build failed" >&2
    exit 1
}
if ! diff -u "$tmp/oshmem.out" "$tmp/symheap.out"; then
    echo "cross_impl.sh: the outputs differ (- OSHMEM, + symheap)" >&2
    exit 1
fi
cat "$tmp/symheap.out"
echo "cross_impl.sh: symheap and OSHMEM print the same $(wc -l <"$tmp/symheap.out") lines"
