#!/usr/bin/env bash
# dev.sh: the README's two commands: set up (packages, configure, build), then demo or tests.
set -euo pipefail

# Debian 12 packages needed to build, run the demo and run every test (sanitizer and fuzz
# builds included). The one list: later issues add their libraries here (libucx-dev, ...).
PACKAGES=(
    build-essential    # gcc, g++, make
    cmake
    ninja-build
    pkg-config
    libopenmpi-dev
    openmpi-bin
    libgtest-dev
    clang
    clang-format       # tools/check_format.sh: the clang-format Debian ships
    libclang-rt-14-dev # ASan, UBSan and libFuzzer runtimes for clang 14
    lld                # the sanitizer builds link with it (cmake/SymhFlags.cmake)
    git
    iproute2           # ip: loopback in the IPC exchange tests' network namespace (ipc_guard_netns.sh)
    util-linux         # unshare, setpriv: those tests' namespace and their outsider of another uid
    libucx-dev         # the UCX transport (src/transport/ucx)
    ucx-utils          # ucx_info: what UCX sees (docs/transports.md)
    libfabric-dev      # the libfabric transport (src/transport/ofi)
    libfabric-bin      # fi_info: the providers libfabric sees
    libamdhip64-dev    # HIP headers: the HIP device backend is built (run only where a GPU is)
    gfortran           # the Fortran interface of the device allocator (src/fortran, docs/fortran.md)
)

BUILD_DIR=build
ASAN_BUILD_DIR=build-asan
TSAN_BUILD_DIR=build-tsan
DEBUG_BUILD_DIR=build-debug
DEMO_NP=4
# Three tests at a time on CI's 2 cores: a multi-PE test spends much of its time in MPI's start-up
# and in waits that yield, so two at a time left a third of the cores idle (ctest -j2 of build/
# used 60% of them); -j3 took 0.77 of -j2's time over the 2-PE suites (docs/testing.md). The
# thread build stays at 2: its tests are CPU-bound under ThreadSanitizer.
CTEST_JOBS=3
CTEST_TIMEOUT=600 # backstop for a test without its own TIMEOUT; none should hang this long

usage() {
    cat <<EOF
usage: ./dev.sh demo | test | --help

  demo    install missing Debian packages, configure $BUILD_DIR/, build the library and the
          demo there, then run mpirun -np $DEMO_NP $BUILD_DIR/examples/symh_hello
  test    the same set-up, then the format check, the test suite (ctest in $BUILD_DIR/), and
          the sanitizer builds (clang; address+undefined with the fuzz targets in
          $ASAN_BUILD_DIR/, thread in $TSAN_BUILD_DIR/) and the Debug build with the expensive
          invariant checks ($DEBUG_BUILD_DIR/, a selection), each with its own ctest run; exits
          non-zero if any step fails
  --help  print this text

Packages are installed with apt-get (through sudo when not root) only when missing; a build
directory is configured only once; later runs build incrementally.
EOF
}

log() {
    printf '\n==> %s\n' "$*"
}

die() {
    printf 'dev.sh: %s\n' "$*" >&2
    exit 1
}

# ---- set-up ---------------------------------------------------------------------------------
PACKAGES_INSTALLED=0
PACKAGES_NOTE="all present"

install_packages() {
    local pkg state missing=() sudo=()

    if ! command -v dpkg-query >/dev/null; then
        printf 'dev.sh: no dpkg-query (not Debian?): make sure these are installed: %s\n' \
            "${PACKAGES[*]}" >&2
        PACKAGES_NOTE="not checked (no dpkg-query)"
        return 0
    fi
    for pkg in "${PACKAGES[@]}"; do
        state=$(dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null || true)
        [[ $state == *"install ok installed"* ]] || missing+=("$pkg")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        return 0
    fi
    log "installing missing packages: ${missing[*]}"
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "not root and no sudo: install as root: ${missing[*]}"
        sudo=(sudo)
    fi
    ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update ||
        die "apt-get update failed"
    ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}" ||
        die "apt-get install failed for: ${missing[*]}"
    PACKAGES_INSTALLED=1
    PACKAGES_NOTE="installed: ${missing[*]}"
}

# configure DIR [VAR=value ...] -- [cmake options ...]
# Configures DIR once. After new packages were installed an existing DIR is configured again,
# so that CMake finds what was just installed.
configure() {
    local dir=$1 env_vars=()

    shift
    while [[ $# -gt 0 && $1 != -- ]]; do
        env_vars+=("$1")
        shift
    done
    shift
    if [[ -f $dir/CMakeCache.txt ]]; then
        if [[ $PACKAGES_INSTALLED -eq 0 && (-f $dir/build.ninja || -f $dir/Makefile) ]]; then
            return 0
        fi
        log "configuring $dir/ again"
        cmake -S . -B "$dir" "$@"
    else
        log "configuring $dir/"
        env ${env_vars[@]+"${env_vars[@]}"} cmake -S . -B "$dir" -G Ninja "$@"
    fi
}

build() {
    log "building $1/"
    cmake --build "$1"
}

# Builds in DIR only what the tests of the selections SEL... (each a string of ctest arguments)
# run: the build outputs their command lines and environments name (a program, or one a script is
# given), with what those link. The sanitizer and Debug builds run selections, and building every
# test program there took as long as running them. A test whose script is given the whole build
# tree (the CLI tests, the install test) must not be in a selection; selections that name no
# output build everything.
build_for_tests() {
    local dir=$1 abs known sel outputs
    shift
    abs=$(cd "$dir" && pwd)
    known=$(cmake --build "$dir" -- -t targets all | sed 's/:.*//')
    mapfile -t outputs < <(set -f; for sel in "$@"; do
        # shellcheck disable=SC2086 # a selection is words on purpose
        ctest --test-dir "$dir" -N -V $sel
    done | grep -oE "$abs/[^\" ;:]+" | sed "s|^$abs/||" | sort -u |
        grep -Fxf <(printf '%s\n' "$known") || true)
    if [[ ${#outputs[@]} -eq 0 ]]; then
        build "$dir"
        return
    fi
    log "building $dir/ (the ${#outputs[@]} programs its tests run)"
    cmake --build "$dir" --target "${outputs[@]}"
}

# Open MPI refuses root without these, and runs no more PEs than cores without oversubscription.
# Both are set here, for this script's children only, never in the user's shell.
setup_mpi_env() {
    if [[ $(id -u) -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1
}

# ---- test steps -----------------------------------------------------------------------------
SUMMARY=()
FAILED=0

# step NAME COMMAND...: runs COMMAND, records the outcome for the summary; returns its status.
step() {
    local name=$1 start=$SECONDS

    shift
    if "$@"; then
        SUMMARY+=("$(printf '  ok    %-46s %4ss' "$name" $((SECONDS - start)))")
        return 0
    fi
    SUMMARY+=("$(printf '  FAIL  %-46s %4ss' "$name" $((SECONDS - start)))")
    FAILED=$((FAILED + 1))
    return 1
}

skip() {
    SUMMARY+=("$(printf '  skip  %-46s (%s)' "$1" "$2")")
}

TESTS_PASSED=0
TESTS_SKIPPED=0
TESTS_FAILED=0

# Runs ctest in DIR and adds its counts to the totals of the closing line.
run_ctest() {
    local dir=$1 out status=0 counts failed total skipped

    shift
    log "ctest in $dir/"
    out=$(mktemp)
    ctest --test-dir "$dir" --output-on-failure -j"$CTEST_JOBS" --timeout "$CTEST_TIMEOUT" "$@" |
        tee "$out" || status=$?
    # "100% tests passed, 0 tests failed out of 29": the passed count includes the skipped tests,
    # which ctest lists after it under "The following tests did not run:" as "  12 - name
    # (Skipped)" (disabled tests, listed there as "(Disabled)", are in neither count).
    counts=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 \2/p' "$out")
    skipped=$(grep -cE '^[[:space:]]+[0-9]+ - .+ \(Skipped\)$' "$out" || true)
    rm -f "$out"
    if [[ -n $counts ]]; then
        read -r failed total <<<"$counts"
        TESTS_FAILED=$((TESTS_FAILED + failed))
        TESTS_SKIPPED=$((TESTS_SKIPPED + skipped))
        TESTS_PASSED=$((TESTS_PASSED + total - failed - skipped))
    elif [[ $status -eq 0 ]]; then
        status=1 # no tests ran: that is not a pass
    fi
    return "$status"
}

format_check() {
    log "format check"
    tools/check_format.sh
}

configure_main() {
    configure "$BUILD_DIR" -- -DSYMH_WERROR=ON
}

# Without libfabric: the thread build runs UCX's configurations and proves that a transport the
# build lacks is refused (tests/mpi test_mpi_boot); the other two builds run every transport.
# Without the Fortran interface: its tests start no threads (nothing for ThreadSanitizer to see),
# and gfortran would link gcc's thread runtime beside clang's; the address build keeps it.
configure_tsan() {
    configure "$TSAN_BUILD_DIR" CC=clang CXX=clang++ -- -DSYMH_SANITIZE=thread -DSYMH_WERROR=ON \
        -DSYMH_WITH_OFI=OFF -DSYMH_FORTRAN=OFF
}

configure_asan() {
    configure "$ASAN_BUILD_DIR" CC=clang CXX=clang++ -- \
        -DSYMH_SANITIZE=address,undefined -DSYMH_FUZZ=ON -DSYMH_WERROR=ON
}

# Debug with assertions and the O(n) heap and registry walks after every change: it catches what
# optimized builds pass by luck (an unset status read back as 0). gcc, so that clang's warnings
# (the sanitizer builds) and gcc's -O0 code both get their turn.
configure_debug() {
    configure "$DEBUG_BUILD_DIR" -- -DCMAKE_BUILD_TYPE=Debug -DSYMH_EXPENSIVE_CHECKS=ON \
        -DSYMH_WERROR=ON
}

# What the Debug build runs (docs/testing.md "The Debug build"): the unit tests and the tests of
# label `hardening`, then the multi-PE suites over IPC (one node) and over one NIC configuration
# (libfabric tcp) at 2 PEs, there the suites that change the heap or the registry (RMA, NIC, heap,
# registration, symmetric registration, globals; barrier, contexts, collectives, teams and sync
# map nothing); the walks after each change make more PEs and the other NIC configurations too
# slow for CI's budget, and the builds above run those already. The hang
# watch's tests (hang*, tl_hang*) are left out: they mostly sleep (10 s each) and the expensive
# checks find nothing in a PE that waits; build/ and the sanitizer builds run them.
DEBUG_SKIP_TESTS='^(tl_)?hang(_abort)?\.'
DEBUG_MPI_TESTS='^(boot|heap|barrier|rma|reg|symm|vmm)\.np2(\.(one_node|default))?$|^tl_(rma|nic|heap|symm|reg|globals)\.np2\.ofi_tcp$'

run_ctest_debug() {
    local status=0

    run_ctest "$DEBUG_BUILD_DIR" -L '^(unit|hardening)$' -E "$DEBUG_SKIP_TESTS" || status=$?
    run_ctest "$DEBUG_BUILD_DIR" -R "$DEBUG_MPI_TESTS" -LE '^(unit|hardening)$' || status=$?
    return "$status"
}

# What the address build runs (docs/testing.md "Sanitizer builds"): everything at 2 PEs and the
# singletons, then 4 PEs in the mixed configuration (IPC inside pretend nodes, the NIC between
# them) for the RMA, NIC and symmetric registration suites. Left to build/ (and to the thread
# build for its suites): the one-PE runs under mpirun (the singletons reach the same code without
# it), 3, 4 and 8 PEs otherwise, libfabric's sockets provider (the tcp provider runs the same
# symheap code), the benchmarks' smoke tests, the Fortran interface (bindings over the C calls
# run here), the command-line and example programs (their output is what they check). Under ASan
# these took 0.55 of the address build's test time; beyond the selection they reach the
# collectives' branches for other PE counts and the sockets provider's own behaviour, which
# build/ checks.
ASAN_LEFT_OUT='^(checks|np1|np3|np4|np8|ofi_sockets|bench|fortran|cli|examples)$'
# By name: the OpenSHMEM programs over UCX (they run over IPC here: the shmem face is the same
# code over either, and the tl_* suites run the UCX transport under ASan), and the hang watch's
# waits (hang.*, tl_hang.*: a PE asleep for 10 s gives ASan nothing; the hang_abort tests run the
# watch's reporting here). They were 0.13 of this build's test time.
ASAN_SKIP_TESTS='^shmem_conf\.np2\.ucx$|^(tl_)?hang\.'
ASAN_MIXED_TESTS='^tl_(rma|nic|symm)_mixed\.np4$'

run_ctest_asan() {
    local status=0

    run_ctest "$ASAN_BUILD_DIR" -LE "$ASAN_LEFT_OUT" -E "$ASAN_SKIP_TESTS" || status=$?
    run_ctest "$ASAN_BUILD_DIR" -R "$ASAN_MIXED_TESTS" || status=$?
    return "$status"
}

# What the thread build runs (docs/testing.md "The thread build"): ThreadSanitizer sees races
# between the threads of one process, never between PEs (each a process of its own), so it runs
# the unit tests and the suites whose programs start threads of their own (contexts, the NIC
# suite's threads, collectives and teams from several threads, the device table), plus the
# start-up suites (symh_init's IPC exchange serves peers from a thread beside the main one).
TSAN_MPI_TESTS='^(ctx|tl_ctx|tl_nic|coll_threads|tl_coll|team|tl_team|ipc_guard|boot|startup_agree|device)(_mixed|_nomixed)?\.'
# ThreadSanitizer looks inside one process: 4 and 8 PEs over one configuration give it no thread
# the 2-PE runs do not (the mixed runs at 4 PEs stay: a PE there has IPC and NIC peers at once).
TSAN_SKIP_TESTS='([^d]|[^e]d)\.np[48]'

run_ctest_tsan() {
    local status=0

    CTEST_JOBS=2 run_ctest "$TSAN_BUILD_DIR" -L '^unit$' || status=$?
    CTEST_JOBS=2 run_ctest "$TSAN_BUILD_DIR" -R "$TSAN_MPI_TESTS" -E "$TSAN_SKIP_TESTS" \
        -LE '^(unit|checks)$' || status=$?
    return "$status"
}

print_summary() {
    local line

    printf '\n==> summary of ./dev.sh test\n'
    for line in "${SUMMARY[@]}"; do
        printf '%s\n' "$line"
    done
    if [[ $FAILED -eq 0 ]]; then
        printf 'all steps passed\n'
    else
        printf '%d step(s) failed; their output is above\n' "$FAILED"
    fi
    printf '%d passed, %d skipped, %d failed\n' "$TESTS_PASSED" "$TESTS_SKIPPED" "$TESTS_FAILED"
}

# The demo needs the library and symh_hello only (examples/CMakeLists.txt), not the test targets:
# `./dev.sh test` builds everything.
cmd_demo() {
    install_packages
    configure_main || die "configuring $BUILD_DIR/ failed"
    log "building $BUILD_DIR/ (the library and symh_hello)"
    cmake --build "$BUILD_DIR" --target symh_hello || die "building $BUILD_DIR/ failed"
    setup_mpi_env
    log "mpirun -np $DEMO_NP $BUILD_DIR/examples/symh_hello"
    mpirun --oversubscribe -np "$DEMO_NP" "$BUILD_DIR/examples/symh_hello"
}

cmd_test() {
    install_packages
    SUMMARY+=("$(printf '  ok    %-46s (%s)' "Debian packages" "$PACKAGES_NOTE")")
    setup_mpi_env

    step "format check (tools/check_format.sh)" format_check || true

    if step "configure $BUILD_DIR/" configure_main && step "build $BUILD_DIR/" build "$BUILD_DIR"
    then
        # checks.format is the step above; running it twice would only repeat its report.
        step "ctest $BUILD_DIR/" run_ctest "$BUILD_DIR" -E '^checks\.format$' || true
    else
        skip "ctest $BUILD_DIR/" "no build"
    fi

    # The repository checks (label `checks`) do not depend on the build flavour: they ran above.
    if step "configure $ASAN_BUILD_DIR/ (clang asan+ubsan fuzz)" configure_asan &&
        step "build $ASAN_BUILD_DIR/ (what its tests run)" build_for_tests "$ASAN_BUILD_DIR" \
            "-LE $ASAN_LEFT_OUT -E $ASAN_SKIP_TESTS" "-R $ASAN_MIXED_TESTS"; then
        step "ctest $ASAN_BUILD_DIR/ (a selection)" run_ctest_asan || true
    else
        skip "ctest $ASAN_BUILD_DIR/" "no build"
    fi

    if step "configure $TSAN_BUILD_DIR/ (clang thread)" configure_tsan &&
        step "build $TSAN_BUILD_DIR/ (what its tests run)" build_for_tests "$TSAN_BUILD_DIR" \
            "-L ^unit$" "-R $TSAN_MPI_TESTS -LE ^(unit|checks)$"; then
        step "ctest $TSAN_BUILD_DIR/ (threads)" run_ctest_tsan || true
    else
        skip "ctest $TSAN_BUILD_DIR/" "no build"
    fi

    if step "configure $DEBUG_BUILD_DIR/ (gcc Debug, expensive checks)" configure_debug &&
        step "build $DEBUG_BUILD_DIR/ (what its tests run)" build_for_tests "$DEBUG_BUILD_DIR" \
            "-L ^(unit|hardening)$ -E $DEBUG_SKIP_TESTS" "-R $DEBUG_MPI_TESTS -LE ^(unit|hardening)$"; then
        step "ctest $DEBUG_BUILD_DIR/ (a selection)" run_ctest_debug || true
    else
        skip "ctest $DEBUG_BUILD_DIR/" "no build"
    fi

    print_summary
    [[ $FAILED -eq 0 ]]
}

main() {
    if [[ $# -ne 1 ]]; then
        usage >&2
        exit 2
    fi
    cd "$(dirname "${BASH_SOURCE[0]}")"
    case $1 in
    demo) cmd_demo ;;
    test) cmd_test ;;
    -h | --help | help) usage ;;
    *)
        usage >&2
        exit 2
        ;;
    esac
}

main "$@"
