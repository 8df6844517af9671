#!/bin/sh
# install_test.sh: installs a built symheap into a temporary prefix and uses it from outside.
#
# Inputs (set by tests/install/CMakeLists.txt; set them by hand to run it in a plain shell):
#   SYMHTEST_CMAKE         cmake
#   SYMHTEST_BUILD_DIR     the built symheap tree
#   SYMHTEST_CONFIG        its configuration to install (may be empty)
#   SYMHTEST_CONSUMER_DIR  tests/install/consumer (consumer.c, osh_consumer.c, CMake project)
#   SYMHTEST_GENERATOR     CMake generator; SYMHTEST_MAKE_PROGRAM its build tool (may be empty)
#   SYMHTEST_CC            C compiler
#   SYMHTEST_PKG_CONFIG    pkg-config (empty or missing: step (b) is skipped)
#   SYMHTEST_MPIEXEC       mpiexec or mpirun
#   SYMHTEST_VERSION       the version being installed
#   SYMHTEST_BINDIR, SYMHTEST_LIBDIR, SYMHTEST_INCLUDEDIR  install layout (GNUInstallDirs)
#   SYMHTEST_FORTRAN       a Fortran compiler when the build has the Fortran interface (else empty)
#   SYMHTEST_KEEP=1        keep the temporary directory
# Steps: install; check the files; symh_info; symhcc, oshcc, oshc++, oshrun -showme/--help;
# (a) find_package(symheap); (b) pkg-config; (c) symhcc; each program under `mpiexec -np 2`;
# (d) OpenSHMEM: osh_consumer.c built with oshcc and oshc++ must get symheap's <shmem.h> (not
# Open MPI's OSHMEM one on mpicc's path), link libsymheap (not liboshmem) and run under
# `oshrun -np 2`; the CMake and pkg-config flags must find the same <shmem.h>; then the prefix is
# moved and symhcc, oshcc and symh_info must follow it.
# Exit 0: passed, 1: failed, 77: passed but (b) skipped.
set -eu

: "${SYMHTEST_CMAKE:?not set (see the top of $0)}"
: "${SYMHTEST_BUILD_DIR:?not set (see the top of $0)}"
: "${SYMHTEST_CONSUMER_DIR:?not set (see the top of $0)}"
: "${SYMHTEST_GENERATOR:?not set (see the top of $0)}"
: "${SYMHTEST_CC:?not set (see the top of $0)}"
: "${SYMHTEST_MPIEXEC:?not set (see the top of $0)}"
: "${SYMHTEST_VERSION:?not set (see the top of $0)}"
: "${SYMHTEST_BINDIR:=bin}"
: "${SYMHTEST_LIBDIR:=lib}"
: "${SYMHTEST_INCLUDEDIR:=include}"
: "${SYMHTEST_MAKE_PROGRAM:=}"
: "${SYMHTEST_CONFIG:=}"
: "${SYMHTEST_PKG_CONFIG:=}"
: "${SYMHTEST_KEEP:=0}"
: "${SYMHTEST_FORTRAN:=}"

# Open MPI refuses root without these, and 2 PEs may be more than the cores it sees.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
oversubscribe=
if "$SYMHTEST_MPIEXEC" --version 2>&1 | grep -q -E 'Open MPI|OpenRTE'; then
    oversubscribe=--oversubscribe
fi
# A hung PE fails this step with a message instead of running into the CTest timeout.
limit=
if command -v timeout >/dev/null 2>&1; then
    limit="timeout 60"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-install-test.XXXXXX")
tmp=$(cd -P -- "$tmp" && pwd) # symhcc reports physical paths
cleanup() {
    if [ "$SYMHTEST_KEEP" = 1 ]; then
        echo "install test: kept $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
prefix=$tmp/prefix
bindir=$prefix/$SYMHTEST_BINDIR
libdir=$prefix/$SYMHTEST_LIBDIR
incdir=$prefix/$SYMHTEST_INCLUDEDIR
log=$tmp/step.log
step_name=

step() {
    step_name=$1
    echo "== $step_name"
}

# fail <message> [file to show]
fail() {
    echo "install test FAILED at step '$step_name': $1" >&2
    if [ $# -gt 1 ] && [ -s "$2" ]; then
        echo "---- output (last 60 lines of $2) ----" >&2
        tail -n 60 "$2" >&2
        echo "----" >&2
    fi
    exit 1
}

# logged <command...>: run it with its output in $log; on failure show that output.
logged() {
    if ! "$@" >"$log" 2>&1; then
        fail "command failed: $*" "$log"
    fi
}

# run_pes <kind> <program>: run on 2 PEs; each must print "consumer <kind>: PE <i> of 2, ...".
run_pes() {
    out=$tmp/run.out
    # shellcheck disable=SC2086
    if ! $limit "$SYMHTEST_MPIEXEC" -np 2 $oversubscribe "$2" >"$out" 2>&1; then
        fail "$SYMHTEST_MPIEXEC -np 2 $oversubscribe $2 failed" "$out"
    fi
    # symheap logs "[host:pid:pe] file:line level ..."; nothing here should warn.
    if grep -q -E '^\[[^]]*\] [^ ]+ (warn|error) ' "$out"; then
        fail "$2 logged warnings or errors" "$out"
    fi
    for pe in 0 1; do
        grep -q "^consumer $1: PE $pe of 2, " "$out" ||
            fail "$2 did not print 'consumer $1: PE $pe of 2'" "$out"
    done
    sed 's/^/   /' "$out"
}

step "install into $prefix"
if [ -n "$SYMHTEST_CONFIG" ]; then
    logged "$SYMHTEST_CMAKE" --install "$SYMHTEST_BUILD_DIR" --config "$SYMHTEST_CONFIG" \
        --prefix "$prefix"
else
    logged "$SYMHTEST_CMAKE" --install "$SYMHTEST_BUILD_DIR" --prefix "$prefix"
fi

step "installed files"
major=${SYMHTEST_VERSION%%.*}
for file in "$incdir/symheap.h" "$incdir/symheap_mpi.h" "$incdir/symheap/version.h" \
    "$incdir/symheap/defs.h" "$libdir/libsymheap.a" "$libdir/libsymheap.so" \
    "$libdir/libsymheap.so.$major" "$libdir/libsymheap.so.$SYMHTEST_VERSION" \
    "$libdir/cmake/symheap/symheapConfig.cmake" \
    "$libdir/cmake/symheap/symheapConfigVersion.cmake" \
    "$libdir/cmake/symheap/symheapTargets.cmake" "$libdir/pkgconfig/symheap.pc"; do
    [ -f "$file" ] || fail "missing $file"
done
for file in "$incdir/shmem.h" "$incdir/shmemx.h" "$incdir/symheap/openshmem/shmem.h" \
    "$incdir/symheap/openshmem/shmemx.h" "$incdir/mpp/shmem.h" "$incdir/mpp/shmemx.h" \
    "$incdir/symheap/openshmem/mpp/shmem.h" "$incdir/symheap/openshmem/mpp/shmemx.h"; do
    [ -f "$file" ] || fail "missing $file"
done
for file in "$bindir/symh_info" "$bindir/symhcc" "$bindir/oshcc" "$bindir/oshc++" \
    "$bindir/oshcxx" "$bindir/oshCC" "$bindir/oshrun"; do
    [ -x "$file" ] || fail "missing or not executable: $file"
done
grep -q "SYMH_VERSION_STRING \"$SYMHTEST_VERSION\"" "$incdir/symheap/version.h" ||
    fail "$incdir/symheap/version.h does not say version $SYMHTEST_VERSION"

step "installed symh_info runs (no LD_LIBRARY_PATH needed)"
logged "$bindir/symh_info"
grep -q SYMH_HEAP_SIZE "$log" || fail "symh_info printed no SYMH_HEAP_SIZE" "$log"

step "symhcc -showme and --help"
logged "$bindir/symhcc" -showme -c -o x.o x.c
grep -q -- '-lsymheap' "$log" && fail "symhcc -showme -c must not link (-lsymheap)" "$log"
logged "$bindir/symhcc" -showme x.c -o x
for word in -lsymheap "-I$incdir" "-L$libdir" "-Wl,-rpath,$libdir" x.c; do
    grep -q -F -- " $word" "$log" || fail "symhcc -showme does not mention $word" "$log"
done
sed 's/^/   /' "$log"
logged "$bindir/symhcc" --help
grep -q '^usage: symhcc' "$log" || fail "symhcc --help printed no usage line" "$log"

# The OpenSHMEM include path: the forwarding directory, then the include directory, first.
osh_inc="-I$incdir/symheap/openshmem -I$incdir"
step "oshcc, oshc++ -showme and --help"
for tool in oshcc oshc++; do
    logged "$bindir/$tool" -showme -c -o x.o x.c
    grep -q -- '-lsymheap' "$log" && fail "$tool -showme -c must not link (-lsymheap)" "$log"
    logged "$bindir/$tool" -showme x.c -o x
    grep -q -F -- " $osh_inc x.c -o x -L$libdir -lsymheap -Wl,-rpath,$libdir" "$log" ||
        fail "$tool -showme: not '<wrapper> $osh_inc x.c -o x -L$libdir -lsymheap ...'" "$log"
    sed 's/^/   /' "$log"
    logged "$bindir/$tool" --help
    grep -q "^usage: $tool" "$log" || fail "$tool --help printed no usage line" "$log"
done
step "oshrun -showme and --help"
export OSHRUN_MPIRUN="$SYMHTEST_MPIEXEC"
# Our options only in front: the program's own --help is the program's.
logged env SYMH_LOG_LEVEL=warn "$bindir/oshrun" -showme -np 2 ./app --help
grep -q -E -- "^[^ ]*$(basename "$SYMHTEST_MPIEXEC") .*-np 2 \./app --help\$" "$log" ||
    fail "oshrun -showme: not '$SYMHTEST_MPIEXEC ... -np 2 ./app --help'" "$log"
if [ -n "$oversubscribe" ]; then
    grep -q -F -- " -x SYMH_LOG_LEVEL " "$log" ||
        fail "oshrun -showme: Open MPI's mpirun without -x SYMH_LOG_LEVEL" "$log"
fi
sed 's/^/   /' "$log"
logged "$bindir/oshrun" --help
grep -q '^usage: oshrun' "$log" || fail "oshrun --help printed no usage line" "$log"

step "(a) CMake: find_package(symheap) with CMAKE_PREFIX_PATH"
set -- -S "$SYMHTEST_CONSUMER_DIR" -B "$tmp/cmake-build" -G "$SYMHTEST_GENERATOR" \
    "-DCMAKE_C_COMPILER=$SYMHTEST_CC" "-DCMAKE_PREFIX_PATH=$prefix" \
    "-DSYMH_CONSUMER_EXPECT_PREFIX=$prefix"
if [ -n "$SYMHTEST_MAKE_PROGRAM" ]; then
    set -- "$@" "-DCMAKE_MAKE_PROGRAM=$SYMHTEST_MAKE_PROGRAM"
fi
logged "$SYMHTEST_CMAKE" "$@"
grep -q "symheap $SYMHTEST_VERSION from " "$log" || fail "unexpected symheap package" "$log"
logged "$SYMHTEST_CMAKE" --build "$tmp/cmake-build"
run_pes mpi "$tmp/cmake-build/consumer_cmake"
run_pes plain "$tmp/cmake-build/consumer_cmake_static"

pkg_config_skipped=0
if [ -z "$SYMHTEST_PKG_CONFIG" ] || ! command -v "$SYMHTEST_PKG_CONFIG" >/dev/null 2>&1; then
    echo "== (b) pkg-config: SKIPPED, no pkg-config program"
    pkg_config_skipped=1
else
    step "(b) pkg-config: cc \$(pkg-config --cflags --libs symheap)"
    PKG_CONFIG_PATH=$libdir/pkgconfig
    export PKG_CONFIG_PATH
    logged "$SYMHTEST_PKG_CONFIG" --modversion symheap
    [ "$(cat "$log")" = "$SYMHTEST_VERSION" ] || fail "symheap.pc version is not $SYMHTEST_VERSION" "$log"
    pc_libdir=$("$SYMHTEST_PKG_CONFIG" --variable=libdir symheap)
    [ "$(cd -P -- "$pc_libdir" && pwd)" = "$libdir" ] || fail "symheap.pc libdir $pc_libdir is not $libdir"
    # The Cflags alone must let <symheap_mpi.h> (so <mpi.h>) compile.
    # shellcheck disable=SC2046
    logged "$SYMHTEST_CC" -std=c11 -Wall -Wextra -Werror -DSYMH_CONSUMER_MPI \
        $("$SYMHTEST_PKG_CONFIG" --cflags symheap) -c "$SYMHTEST_CONSUMER_DIR/consumer.c" \
        -o "$tmp/consumer_mpi.o"
    # shellcheck disable=SC2046
    logged "$SYMHTEST_CC" -std=c11 -Wall -Wextra -Werror "$SYMHTEST_CONSUMER_DIR/consumer.c" \
        -o "$tmp/consumer_pkgconfig" $("$SYMHTEST_PKG_CONFIG" --cflags --libs symheap) \
        "-Wl,-rpath,$pc_libdir"
    if command -v ldd >/dev/null 2>&1; then
        logged ldd "$tmp/consumer_pkgconfig"
        grep 'libsymheap\.so' "$log" | grep -q -F "$pc_libdir/" ||
            fail "consumer_pkgconfig does not load libsymheap.so from $pc_libdir" "$log"
    fi
    run_pes plain "$tmp/consumer_pkgconfig"
    # pkg-config's Cflags bring MPI's include path, where OSHMEM's shmem.h may lie: ours first.
    # shellcheck disable=SC2046
    logged "$SYMHTEST_CC" -std=c11 -Wall -Wextra -Werror \
        $("$SYMHTEST_PKG_CONFIG" --cflags symheap) -c "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" \
        -o "$tmp/osh_pkgconfig.o"
fi

step "(c) symhcc"
logged "$bindir/symhcc" -Wall -Wextra -Werror -DSYMH_CONSUMER_MPI \
    "$SYMHTEST_CONSUMER_DIR/consumer.c" -o "$tmp/consumer_symhcc"
run_pes mpi "$tmp/consumer_symhcc"

# check_osh_program <program>: it needs our libsymheap, loads it from $libdir, no liboshmem.
check_osh_program() {
    if command -v readelf >/dev/null 2>&1; then
        logged readelf -d "$1"
        grep -q -F "Shared library: [libsymheap.so.$major]" "$log" ||
            fail "$1 does not need libsymheap.so.$major" "$log"
        grep -q 'liboshmem' "$log" && fail "$1 needs Open MPI's liboshmem" "$log"
    fi
    if command -v ldd >/dev/null 2>&1; then
        logged ldd "$1"
        grep 'libsymheap\.so' "$log" | grep -q -F "$libdir/" ||
            fail "$1 does not load libsymheap.so from $libdir" "$log"
        grep -q 'liboshmem' "$log" && fail "$1 loads Open MPI's liboshmem" "$log"
    fi
    return 0
}

# run_osh <program>: under oshrun -np 2; each PE must print "shmem consumer: PE <i> of 2, symheap".
run_osh() {
    out=$tmp/run.out
    # shellcheck disable=SC2086
    if ! $limit "$bindir/oshrun" -np 2 $oversubscribe "$1" >"$out" 2>&1; then
        fail "oshrun -np 2 $oversubscribe $1 failed" "$out"
    fi
    for pe in 0 1; do
        grep -q "^shmem consumer: PE $pe of 2, symheap " "$out" ||
            fail "$1 did not print 'shmem consumer: PE $pe of 2, symheap ...'" "$out"
    done
    sed 's/^/   /' "$out"
}

step "(d) OpenSHMEM: oshcc, oshc++ and oshrun"
# Is there another shmem.h on the MPI wrapper's include path (Debian's Open MPI: OSHMEM's)? Then
# this step shows that ours wins over it; elsewhere it still shows that ours is found.
for dir in $(${OSHCC_CC:-mpicc} -showme:incdirs 2>/dev/null || true); do
    if [ -f "$dir/shmem.h" ]; then
        echo "   (the MPI C wrapper's include path also has $dir/shmem.h)"
    fi
done
logged "$bindir/oshcc" -Wall -Wextra -Werror "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" \
    -o "$tmp/osh_consumer"
check_osh_program "$tmp/osh_consumer"
run_osh "$tmp/osh_consumer"
logged "$bindir/oshc++" -Wall -Wextra -Werror -x c++ "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" \
    -x none -o "$tmp/osh_consumer_cxx"
check_osh_program "$tmp/osh_consumer_cxx"
run_osh "$tmp/osh_consumer_cxx"
# The older path <mpp/shmem.h>: Open MPI ships one beside its mpi.h too; ours must win.
logged "$bindir/oshcc" -Wall -Wextra -Werror -DOSH_CONSUMER_MPP \
    "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" -o "$tmp/osh_consumer_mpp"
check_osh_program "$tmp/osh_consumer_mpp"
run_osh "$tmp/osh_consumer_mpp"
# find_package(symheap) in (a) built one too, with the include path CMake made.
check_osh_program "$tmp/cmake-build/consumer_osh"
run_osh "$tmp/cmake-build/consumer_osh"
# A prefix of /usr or /usr/local makes the include directory a system one: the compiler drops
# its -I and searches it after every -I, MPI's included. -isystem does the same here, so only
# the forwarding directory keeps symheap's <shmem.h> first.
logged env OSHCC_CC="${OSHCC_CC:-mpicc} -isystem $incdir" "$bindir/oshcc" -Wall -Wextra \
    -Werror -c "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" -o "$tmp/osh_system.o"
logged env OSHCC_CC="${OSHCC_CC:-mpicc} -isystem $incdir" "$bindir/oshcc" -Wall -Wextra \
    -Werror -DOSH_CONSUMER_MPP -c "$SYMHTEST_CONSUMER_DIR/osh_consumer.c" -o "$tmp/osh_mpp.o"

if [ -n "$SYMHTEST_FORTRAN" ]; then
    step "(e) Fortran: symhfort and pkg-config symheap-fortran"
    logged "$bindir/symhfort" -Wall -Werror "$SYMHTEST_CONSUMER_DIR/fort_consumer.f90" \
        -o "$tmp/fort_consumer"
    logged "$tmp/fort_consumer"
    grep -q '^fortran consumer: ok' "$log" || fail "fort_consumer did not print ok" "$log"
    logged "$bindir/symhfort" -showme x.f90
    grep -q -F -- "symheap_fortran" "$log" || fail "symhfort -showme does not link it" "$log"
    if [ "$pkg_config_skipped" = 0 ]; then
        # shellcheck disable=SC2046 # the flags are words
        logged "$SYMHTEST_FORTRAN" "$SYMHTEST_CONSUMER_DIR/fort_consumer.f90" \
            $(PKG_CONFIG_PATH="$libdir/pkgconfig" "$SYMHTEST_PKG_CONFIG" --cflags --libs \
                symheap-fortran) -Wl,-rpath,"$libdir" -o "$tmp/fort_pkgconfig"
        logged "$tmp/fort_pkgconfig"
        grep -q '^fortran consumer: ok' "$log" || fail "fort_pkgconfig did not print ok" "$log"
    fi
fi

step "moved prefix: symhcc, oshcc and symh_info follow it"
mv "$prefix" "$tmp/moved"
logged "$tmp/moved/$SYMHTEST_BINDIR/symhcc" -showme x.c
grep -q -F -- "-L$tmp/moved/$SYMHTEST_LIBDIR " "$log" ||
    fail "moved symhcc does not use the moved prefix $tmp/moved" "$log"
logged "$tmp/moved/$SYMHTEST_BINDIR/oshcc" -showme x.c
grep -q -F -- "-I$tmp/moved/$SYMHTEST_INCLUDEDIR/symheap/openshmem " "$log" ||
    fail "moved oshcc does not use the moved prefix $tmp/moved" "$log"
logged "$tmp/moved/$SYMHTEST_BINDIR/symh_info"

if [ "$pkg_config_skipped" = 1 ]; then
    echo "install test: passed, but (b) pkg-config was skipped"
    exit 77
fi
echo "install test: passed"
