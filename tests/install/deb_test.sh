#!/bin/sh
# deb_test.sh: the Debian packages of a built symheap (cmake/SymhPackage.cmake), from `cpack -G
# DEB` to removal, on this machine: builds symheap and symheap-dev, checks their contents, installs
# them with apt (their dependencies come from the archive when missing), checks that Open MPI's
# /usr/bin/oshcc and oshrun are untouched, builds tests/install/consumer/osh_consumer.c with the
# packaged oshcc (<libdir>/symheap/bin) and runs it on 2 PEs with the packaged oshrun, then removes
# both packages and checks that nothing of them is left.
#
#   deb_test.sh BUILD_DIR CONSUMER_DIR PKG_BINDIR
# PKG_BINDIR: where the package puts the OpenSHMEM tools (/usr/<libdir>/symheap/bin).
# Exit 0: passed; 1: failed; 77: cannot run here (not root, no apt/dpkg, or a symheap package is
# already installed, which this test will not replace).
set -u
build=$1
consumer=$2
bindir=$3

skip() {
    echo "deb_test: skipped: $*"
    exit 77
}
fail() {
    echo "deb_test: FAILED: $*"
    exit 1
}
[ "$(id -u)" -eq 0 ] || skip "installing a package needs root"
command -v dpkg >/dev/null && command -v apt-get >/dev/null || skip "no dpkg/apt-get"
for pkg in symheap symheap-dev; do
    if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        skip "package $pkg is installed already; this test does not replace it"
    fi
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-deb-test.XXXXXX")
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q symheap symheap-dev >/dev/null 2>&1 ||
            dpkg -r symheap-dev symheap >/dev/null 2>&1
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

osh_before=$(readlink -f /usr/bin/oshcc 2>/dev/null || echo none)
oshrun_before=$(readlink -f /usr/bin/oshrun 2>/dev/null || echo none)

echo "deb_test: cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
runtime=$(ls "$tmp"/pkg/symheap_*.deb 2>/dev/null)
dev=$(ls "$tmp"/pkg/symheap-dev_*.deb 2>/dev/null)
[ -n "$runtime" ] && [ -n "$dev" ] || fail "cpack made no symheap and symheap-dev packages"

# Contents: the library in symheap, headers and tools in symheap-dev, no file of openmpi-bin.
dpkg-deb -c "$runtime" | awk '{print $6}' >"$tmp/runtime.list"
dpkg-deb -c "$dev" | awk '{print $6}' >"$tmp/dev.list"
grep -q '/libsymheap\.so\.[0-9]*$' "$tmp/runtime.list" || fail "symheap has no libsymheap.so.N"
grep -q '/bin/symh_info$' "$tmp/runtime.list" || fail "symheap has no symh_info"
for f in include/symheap.h include/shmem.h lib/libsymheap.so lib/libsymheap.a bin/symhcc; do
    grep -q "^\./usr/$f\$" "$tmp/dev.list" || fail "symheap-dev has no /usr/$f"
done
for tool in oshcc oshc++ oshrun; do
    grep -q "^\.$bindir/$tool\$" "$tmp/dev.list" || fail "symheap-dev has no $bindir/$tool"
done
if grep -E '^\./usr/bin/osh' "$tmp/runtime.list" "$tmp/dev.list"; then
    fail "a package ships /usr/bin/osh*, which Debian's openmpi-bin owns"
fi
dpkg-deb -f "$runtime" Depends | grep -q 'libopenmpi' || fail "symheap does not depend on MPI"

echo "deb_test: apt-get install $runtime $dev"
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$runtime" "$dev" \
    >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; fail "apt-get install failed"; }
[ "$(readlink -f /usr/bin/oshcc 2>/dev/null || echo none)" = "$osh_before" ] ||
    fail "/usr/bin/oshcc changed"
[ "$(readlink -f /usr/bin/oshrun 2>/dev/null || echo none)" = "$oshrun_before" ] ||
    fail "/usr/bin/oshrun changed"
/usr/bin/symh_info >"$tmp/info.log" 2>&1 || { cat "$tmp/info.log"; fail "the packaged symh_info failed"; }
grep -q "symheap $(dpkg-deb -f "$runtime" Version)" "$tmp/info.log" || fail "symh_info does not name the version"

echo "deb_test: $bindir/oshcc osh_consumer.c; $bindir/oshrun -np 2"
"$bindir/oshcc" -o "$tmp/osh_consumer" "$consumer/osh_consumer.c" >"$tmp/cc.log" 2>&1 ||
    { cat "$tmp/cc.log"; fail "the packaged oshcc could not build an OpenSHMEM program"; }
ldd "$tmp/osh_consumer" | grep -q 'libsymheap\.so' || fail "the program is not linked to libsymheap"
if ldd "$tmp/osh_consumer" | grep -q 'liboshmem'; then
    fail "the program is linked to Open MPI's liboshmem"
fi
timeout 60 "$bindir/oshrun" -np 2 --oversubscribe "$tmp/osh_consumer" >"$tmp/run.log" 2>&1 ||
    { cat "$tmp/run.log"; fail "the program failed under the packaged oshrun"; }
cat "$tmp/run.log"
[ "$(grep -c '^shmem consumer: PE [01] of 2' "$tmp/run.log")" -eq 2 ] ||
    fail "expected one line from each of 2 PEs"

echo "deb_test: apt-get purge symheap symheap-dev"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q symheap symheap-dev >"$tmp/rm.log" 2>&1 ||
    { cat "$tmp/rm.log"; fail "apt-get remove failed"; }
installed=0
for f in /usr/include/symheap.h /usr/include/shmem.h /usr/bin/symh_info "$bindir/oshcc"; do
    [ ! -e "$f" ] || fail "$f is still there after the removal"
done
[ "$(readlink -f /usr/bin/oshcc 2>/dev/null || echo none)" = "$osh_before" ] ||
    fail "/usr/bin/oshcc changed by the removal"
echo "deb_test: ok"
