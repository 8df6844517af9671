#!/usr/bin/env bash
# SYMH_HEAP_POPULATE and the memory cgroup's warning (docs/heap.md "The heap's memory"), each job
# of 2 PEs in a memory cgroup of 400 MiB made for it (cgroup v1 or v2, as root):
#   populate: 2 GiB heaps with SYMH_HEAP_POPULATE=1: symh_init fails on every PE, with one line
#     naming the variable, the size and the PE, and no PE is killed (without the allocation at
#     init, the 1.5 GiB symh_calloc that follows gets a PE killed by the OOM killer);
#   warn: the same heaps without it: symh_init succeeds with one warning naming the limit;
#   fits: 64 MiB heaps with SYMH_HEAP_POPULATE=1: no line, and while the job holds after init the
#     cgroup's memory exceeds warn's at the same point by about the two heaps (they were
#     allocated at init, not at first touch).
# Exits 77 (skipped) with the reason where no memory cgroup can be made.
# usage: heap_limit.sh MPIEXEC BINARY (environment: the test's)
set -u
mpiexec=$1 bin=$2
limit=$((400 << 20))
out=$(mktemp)
made=()
cleanup() {
    local cg i
    rm -f "$out"
    for cg in ${made[@]+"${made[@]}"}; do
        for i in $(seq 50); do
            rmdir "$cg" 2>/dev/null && break
            sleep 0.1
        done
    done
}
trap cleanup EXIT
skip() {
    echo "heap_limit.sh: skipped: $*"
    exit 77
}
fail() {
    echo "heap_limit.sh: $*" >&2
    exit 1
}

# The memory controller's mount, "VERSION MOUNTPOINT ROOT": v1 where it has one, else cgroup2.
mount_line=$(awk '{
        for (i = 7; i <= NF && $i != "-"; i++);
        type = $(i + 1); opts = "," $(i + 3) ",";
        if (type == "cgroup" && opts ~ /,memory,/) { print 1, $5, $4; found = 1; exit }
        if (type == "cgroup2" && v2 == "") v2 = $5 " " $4;
    } END { if (!found && v2 != "") print 2, v2 }' /proc/self/mountinfo)
[[ -n $mount_line ]] || skip "no cgroup hierarchy is mounted"
read -r version point root <<<"$mount_line"
[[ $(id -u) -eq 0 ]] || skip "making a memory cgroup needs root"
if [[ $version -eq 1 ]]; then
    own=$(awk -F: '("," $2 ",") ~ /,memory,/ { print $3; exit }' /proc/self/cgroup)
else
    own=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
    [[ -f $point/cgroup.controllers ]] && grep -qw memory "$point/cgroup.controllers" ||
        skip "the cgroup v2 hierarchy at $point has no memory controller"
fi
[[ $root == / ]] || own=${own#"$root"}
# A child of this process's own cgroup, so that the limits above still bind; else one at the
# top (cgroup v2 lets a cgroup that holds processes give no controller to its children).
parents=("$point${own%/}" "$point")
make_cgroup() {
    local parent cg
    for parent in "${parents[@]}"; do
        cg=$parent/symh_heap_limit.$$.$1
        if [[ $version -eq 2 ]] && ! grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null; then
            echo +memory >"$parent/cgroup.subtree_control" 2>/dev/null || continue
        fi
        mkdir "$cg" 2>/dev/null || continue
        made+=("$cg")
        if [[ $version -eq 1 ]]; then
            echo "$limit" >"$cg/memory.limit_in_bytes" || continue
            [[ -f $cg/memory.memsw.limit_in_bytes ]] &&
                echo "$limit" >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null
        else
            echo "$limit" >"$cg/memory.max" || continue
            [[ -f $cg/memory.swap.max ]] && echo 0 >"$cg/memory.swap.max" 2>/dev/null
        fi
        cgroup=$cg
        return 0
    done
    return 1
}
usage() { # the cgroup's memory now
    if [[ $version -eq 1 ]]; then cat "$1/memory.usage_in_bytes"; else cat "$1/memory.current"; fi
}
oom_kills() {
    if [[ $version -eq 1 ]]; then
        awk '$1 == "oom_kill" { print $2 }' "$1/memory.oom_control"
    else
        awk '$1 == "oom_kill" { print $2 }' "$1/memory.events"
    fi
}
# run NAME VAR=VALUE... -- ARGS: the job in a fresh cgroup; its output in $out, status in $status.
# With HOLD set, the job holds after init (heap_limit.c) while $held gets the cgroup's memory.
run() {
    local name=$1 vars=() hold="" i
    shift
    while [[ $1 != -- ]]; do
        vars+=("$1")
        shift
    done
    shift
    make_cgroup "$name" || skip "cannot make a memory cgroup with a limit under ${parents[*]} (cgroup v$version)"
    [[ -n ${HOLD:-} ]] && hold=$out.hold && rm -f "$hold"
    env "${vars[@]}" sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cgroup" \
        "$mpiexec" --oversubscribe -n 2 "$bin" "$@" ${hold:+"$hold"} >"$out" 2>&1 &
    if [[ -n $hold ]]; then
        held=-1
        for i in $(seq 3000); do
            grep -q "heap_limit: holding" "$out" && held=$(usage "$cgroup") && break
            kill -0 $! 2>/dev/null || break
            sleep 0.01
        done
        touch "$hold"
    fi
    wait $!
    status=$?
    rm -f "$hold"
    echo "---- $name (${vars[*]}; cgroup v$version $cgroup): exit status $status, ${hold:+$((held >> 20)) MiB held after init, }$(oom_kills "$cgroup") OOM kills"
    cat "$out"
}
lines() { # symheap's log lines of one level
    grep -Ec "^\[[^]]*\] [a-z_]+\.c:[0-9]+ $1 " "$out"
}

run populate SYMH_HEAP_SIZE=2g SYMH_HEAP_POPULATE=1 -- 1536
grep -Eqi "signal 9|killed" "$out" && fail "populate: a PE was killed"
[[ $status -eq 3 ]] || fail "populate: the job exited $status, not 3 (symh_init failed on every PE)"
failed=$(grep -Ec "heap_limit: symh_init returned (-2|-11) " "$out")
[[ $failed -eq 2 ]] || fail "populate: $failed of 2 PEs report symh_init failing"
grep -q "heap_limit: symh_init returned -2 " "$out" || fail "populate: no PE reports SYMH_ERR_NO_MEMORY"
[[ $(lines error) -eq 1 && $(lines warn) -eq 0 ]] ||
    fail "populate: $(lines error) error and $(lines warn) warning lines (1 error line expected)"
grep -E " error symh_init: SYMH_HEAP_POPULATE=1: PE [01] cannot allocate its 2\.0 GiB heap \(SYMH_HEAP_SIZE=2g\): .*400\.0 MiB" "$out" >/dev/null ||
    fail "populate: the error line does not name the variable, the heap, the PE and the limit"

HOLD=1 run warn SYMH_HEAP_SIZE=2g -- 0
warn_held=$held
[[ $status -eq 0 ]] || fail "warn: the job exited $status"
[[ $(grep -c "heap_limit: PE [01] initialized" "$out") -eq 2 ]] || fail "warn: not every PE initialized"
[[ $(lines warn) -eq 1 && $(lines error) -eq 0 ]] ||
    fail "warn: $(lines warn) warning and $(lines error) error lines (1 warning expected)"
grep -E " warn symh_init: PE 0's heap is 2\.0 GiB \(SYMH_HEAP_SIZE=2g\), but its memory cgroup .* has a limit of 400\.0 MiB, and the heaps of the 2 PEs in it come to 4\.0 GiB: " "$out" >/dev/null ||
    fail "warn: the warning does not name the heap, the limit and the PEs"

HOLD=1 run fits SYMH_HEAP_SIZE=64m SYMH_HEAP_POPULATE=1 -- 32
fits_held=$held
[[ $status -eq 0 ]] || fail "fits: the job exited $status"
[[ $(grep -c "heap_limit: PE [01]: symh_calloc of 32 MiB succeeded" "$out") -eq 2 ]] ||
    fail "fits: the calloc did not succeed on every PE"
[[ $(lines warn) -eq 0 && $(lines error) -eq 0 ]] || fail "fits: a warning or error line"
[[ $warn_held -ge 0 && $fits_held -ge 0 ]] || fail "the jobs did not hold after init"
# The two 64 MiB heaps, allocated at init (less slack for the jobs' own spread).
[[ $((fits_held - warn_held)) -ge $((96 << 20)) ]] ||
    fail "fits: the cgroup held $(((fits_held - warn_held) >> 20)) MiB more than in warn, not the two 64 MiB heaps"
echo "heap_limit.sh: the allocation at init failed every PE with one line, the limit was warned of, and a heap that fits was allocated at init"
