#!/bin/sh
# tests/fortran/misuse.sh <test_fortran_misuse>: the reference's policy x misuse table for
# Fortran callers (docs/fortran.md). Each (policy, case) runs in its own process: it must print
# 'case ok' and exit 0, except the cases without ierr under policy error, which must end in
# error stop with one line saying why, and the warn cases without ierr, which must warn.
set -u
prog=$1
fail=0
run() { # policy case expect(ok|stop|warn)
    out=$("$prog" "$1" "$2" 2>/tmp/symh_misuse_err.$$)
    rc=$?
    err=$(cat /tmp/symh_misuse_err.$$)
    case $3 in
    ok) [ $rc -eq 0 ] && [ "$out" = "case ok" ] && [ -z "$err" ] ;;
    warn) [ $rc -eq 0 ] && [ "$out" = "case ok" ] && echo "$err" | grep -q "symheap_dev: warning: " ;;
    err) [ $rc -eq 0 ] && [ "$out" = "case ok" ] && [ -n "$err" ] ;;
    stop) [ $rc -ne 0 ] && echo "$err" | grep -q "registry policy error: stopping" ;;
    size) [ $rc -ne 0 ] && echo "$err" | grep -q "the arrays differ in size" ;;
    esac
    if [ $? -eq 0 ]; then
        echo "ok   $1 $2 ($3)"
    else
        echo "FAIL $1 $2 (expected $3; exit $rc)"
        echo "  stdout: $out"
        echo "  stderr: $err"
        fail=1
    fi
}
for p in warn error; do
    run $p free_alias_ierr ok
    run $p free_section_ierr ok
    run $p free_devid_ierr ok
    run $p copy_strided_ierr ok
    run $p copy_past_end_ierr ok
done
run warn replace_alias warn
run error replace_alias err
for c in free_alias free_devid copy_strided copy_past_end; do
    run warn $c warn
    run error $c stop
done
for c in free_devid_ierr free_devid copy_strided_ierr copy_strided; do
    run off $c ok
done
# Arrays of different sizes: refused under every policy (the copy would write past one).
for p in off warn error; do
    run $p copy_size_ierr ok
    run $p copy_size size
done
rm -f /tmp/symh_misuse_err.$$
exit $fail
