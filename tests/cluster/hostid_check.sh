#!/bin/bash
# tests/cluster: one SYMH_HOSTID on every host of a namespace cluster (hosts that share no memory
# told they are one node). symh_init must fail on every PE at once, in one line that names
# SYMH_HOSTID and both hosts, instead of waiting 60 s for node-local peers that cannot connect.
#   hostid_check.sh CLUSTER_SH PROGRAM
# Exit status: 0 when it does, 1 when not, 77 when namespaces are not allowed here.
set -u
cluster=$1
program=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT

start=$(date +%s%N)
SYMH_HOSTID=one-for-all "$cluster" -n 2 -p 2 -- "$program" >"$log" 2>&1
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
cat "$log"
[[ $status -eq 77 ]] && exit 77
fail() {
    echo "hostid_check: FAILED: $*"
    exit 1
}
[[ $status -ne 0 ]] || fail "the job succeeded with one SYMH_HOSTID on two hosts"
# The whole run (cluster built, four PEs started, init failed, cluster removed) in well under the
# 60 s the exchange used to wait; it takes about 2.5 s here.
[[ $elapsed_ms -lt 20000 ]] || fail "the job took ${elapsed_ms} ms to fail (the exchange waited)"
lines=$(grep -c "error symh_init: PE .* (host node[01]) cannot reach PE .* (host node[01]).*SYMH_HOSTID=one-for-all" "$log")
[[ $lines -eq 1 ]] || fail "expected one line naming both hosts and SYMH_HOSTID, found $lines"
others=$(grep -E "\] [a-z_.]+:[0-9]+ (error|warn) " "$log" | grep -vc "cannot reach PE")
[[ $others -eq 0 ]] || fail "$others other error or warning lines"
echo "hostid_check: ok: one line, ${elapsed_ms} ms"
