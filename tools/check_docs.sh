#!/usr/bin/env bash
# check_docs.sh: checks two kinds of claim the docs make against the code, by script.
set -euo pipefail

# 1. codes   Every SYMH_ERR_* that a comment of a public header (include/symheap/*.h,
#            include/*.h) names next to a function is one that function can return: the code
#            appears in the function's body in src/, or in the body of a function or macro it
#            calls, followed to CALL_DEPTH levels. "Next to" is the comment right above a run of
#            declarations (no blank line between), which covers every declaration of the run,
#            and a comment on a declaration's own lines.
# 2. examples Every fenced ```c block of README.md and docs/*.md that is a complete program
#            (it has `main(`) compiles against include/: $CC -std=c11 -fsyntax-only -Wall
#            -Wextra -Werror, so a renamed or removed function (an implicit declaration), a
#            changed signature or a wrong type fails.
#
# Limits of check 1 (a heuristic, tuned to this tree's style; it finds codes that are plainly
# wrong, it proves nothing):
#   - a definition is found by clang-format's layout: a line at column 0 holding the return
#     type and the name, `{` on the line after the parameters, the body ending at a `}` at
#     column 0; a macro is a `#define` and its continuation lines;
#   - calls are followed by name: symh_*/SYMH_* functions and macros anywhere in src/, other
#     (static) functions of the same file; a call through an ops table (symh_dev->copy,
#     mr->ops->allocate) is followed to every function any table puts in a slot of that name
#     (`.copy = fn,` lines), whichever table the pointer holds; a call through a plain function
#     pointer is not followed, nor are X-macro-generated definitions (the typed RMA families
#     are declared by macro, so they are not checked either);
#   - "appears" is textual: a code that a callee returns on another path, or names in a
#     comment, counts; so a wrong code that some callee happens to contain passes;
#   - a comment covers the whole run of declarations below it: a code right for one of them
#     passes for all. A declaration without a definition found in src/ is reported.
# A code that is right but reached only where the heuristic cannot follow goes in ALLOW below,
# as `function SYMH_ERR_CODE  # why`.
ALLOW='
'
CALL_DEPTH=${CALL_DEPTH:-3}

usage() {
    cat <<EOF
usage: tools/check_docs.sh [SOURCE_DIR [GENERATED_INCLUDE_DIR]]

Checks that each SYMH_ERR_* named in a public header's comment next to a function appears in
that function's definition or in what it calls (to depth $CALL_DEPTH), and that each complete C
program in README.md and docs/*.md compiles against include/ (\$CC, default cc). The second
argument is a build's include/ (for the generated symheap/version.h); without it a stand-in is
made from version.h.in. Prints each failure as file:line: check: detail. Exit status: 0 clean,
1 failures, 2 usage error.
EOF
}

. "$(dirname "${BASH_SOURCE[0]}")/tool_args.sh"
symh_tool_args 2 "$@"
gen_include=${2:-}
[[ -z $gen_include || -d $gen_include ]] || {
    echo "check_docs: no directory $gen_include" >&2
    exit 2
}
[[ -z $gen_include ]] || gen_include=$(cd "$gen_include" && pwd)
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
[[ -d src && -d include/symheap ]] || {
    echo "check_docs: no src/ and include/symheap/ in $(pwd)" >&2
    exit 2
}

tmp=$(mktemp -d)
if [[ -n ${CHECK_DOCS_KEEP:-} ]]; then # for debugging the check: keep its intermediate files
    echo "check_docs: keeping $tmp" >&2
else
    trap 'rm -rf "$tmp"' EXIT
fi
failures=0

# ---- 1. codes -------------------------------------------------------------------------------

# The definitions of src/: `D key file line` for each function or macro, then `E key CODE` for
# each SYMH_ERR_* in its body and `C key callee` for each name it calls. Static (unprefixed)
# names are keyed file:name, since several files may have their own.
find src -name '*.[ch]' | LC_ALL=C sort >"$tmp/sources"
# shellcheck disable=SC2046 # file names under src/ have no blanks (check_includes: unique)
# Parenthesis depth of a line, for both awk passes below.
AWK_DEPTH_OF='function depth_of(s,    d, i, c) {
    d = 0
    for (i = 1; i <= length(s); ++i) {
        c = substr(s, i, 1)
        if (c == "(") ++d
        else if (c == ")") --d
    }
    return d
}
'
awk "$AWK_DEPTH_OF"'
function key(name) { return name ~ /^((symh|SYMH|shmem)_|start_pes$)/ ? name : FILENAME ":" name }
function scan(text, k,    t, id) {
    t = text
    while (match(t, /SYMH_ERR_[A-Z_]+/)) {
        print "E", k, substr(t, RSTART, RLENGTH)
        t = substr(t, RSTART + RLENGTH)
    }
    t = text
    while (match(t, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
        id = substr(t, RSTART, RLENGTH)
        sub(/[ \t]*\($/, "", id)
        # A call through an ops table (ops->put, symh_dev->copy) names a slot: it is followed
        # to every function some table puts in a slot of that name (S lines below).
        if (RSTART >= 3 && substr(t, RSTART - 2, 2) == "->")
            print "C", k, "->" id
        else if (substr(t, RSTART - 1, 1) != ".")
            print "C", k, id
        t = substr(t, RSTART + RLENGTH)
    }
}
FNR == 1 { mode = "" }
# A slot of an ops table: `    .copy = symh_dev_host_copy,` (docs/conventions.md: designated initialisers).
/^[ \t]*\.[a-z_][a-z0-9_]*[ \t]*=[ \t]*&?[A-Za-z_][A-Za-z0-9_]*[ \t]*,?[ \t]*(\/\*.*)?$/ {
    slot = $0
    sub(/^[ \t]*\./, "", slot)
    fn = slot
    sub(/[ \t]*=.*/, "", slot)
    sub(/^[^=]*=[ \t]*&?/, "", fn)
    sub(/[^A-Za-z0-9_].*/, "", fn)
    print "S", "->" slot, key(fn)
}
mode == "body" {
    scan($0, cur)
    if ($0 ~ /^}/) mode = ""
    next
}
mode == "macro" {
    scan($0, cur)
    if ($0 !~ /\\$/) mode = ""
    next
}
mode == "proto" {
    proto = proto " " $0
    pdepth += depth_of($0)
    if (pdepth > 0) next
    mode = "after"
    rest = $0
    sub(/.*\)/, "", rest)
    if (rest ~ /\{/) { mode = "body"; print "D", cur, FILENAME, start; scan(proto, cur) }
    else if (rest ~ /;/) mode = ""
    next
}
mode == "after" {
    mode = ""
    if ($0 ~ /^\{/) { mode = "body"; print "D", cur, FILENAME, start; scan(proto, cur); next }
}
/^#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/ {
    name = $0
    sub(/^#[ \t]*define[ \t]+/, "", name)
    match(name, /^[A-Za-z_][A-Za-z0-9_]*/)
    name = substr(name, 1, RLENGTH)
    cur = key(name)
    print "D", cur, FILENAME, FNR
    rest = $0
    sub(/^#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/, "", rest)
    scan(rest, cur)
    if ($0 ~ /\\$/) mode = "macro"
    next
}
/^[A-Za-z_][A-Za-z0-9_ \t*]*\(/ &&
    $0 !~ /^(typedef|return|else|if|for|while|do|switch|case|goto)[^A-Za-z0-9_]/ {
    head = $0
    sub(/\(.*/, "", head)
    if (!match(head, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) next
    name = substr(head, RSTART, RLENGTH)
    sub(/[ \t]+$/, "", name)
    if (head == name) next # a call or macro use at column 0, not a definition
    cur = key(name)
    start = FNR
    proto = $0
    pdepth = depth_of($0)
    if (pdepth > 0) { mode = "proto"; next }
    rest = $0
    sub(/.*\)/, "", rest)
    if (rest ~ /\{/) { mode = "body"; print "D", cur, FILENAME, start; scan(proto, cur) }
    else if (rest !~ /;/) mode = "after"
    next
}
' $(cat "$tmp/sources") >"$tmp/index"

# The public headers: `G group file line CODE` for each code a comment names and `M group name
# file line` for each declaration the comment covers.
awk "$AWK_DEPTH_OF"'
function codes_of(text, where,    t) {
    t = text
    while (match(t, /SYMH_ERR_[A-Z_]+/)) {
        codes[++ncodes] = substr(t, RSTART, RLENGTH) " " where
        t = substr(t, RSTART + RLENGTH)
    }
}
function end_group(    i) {
    if (nmembers > 0)
        for (i = 1; i <= ncodes; ++i) print "G", group, codes[i]
    ++group
    ncodes = 0
    nmembers = 0
    after_comment = 0
}
FNR == 1 { end_group(); in_comment = 0; in_decl = 0; in_define = 0 }
{
    line = $0
    code = ""
    comment = ""
    # Split the line into code and comment text (comments may open and close several times).
    while (line != "") {
        if (in_comment) {
            if (match(line, /\*\//)) {
                comment = comment " " substr(line, 1, RSTART - 1)
                line = substr(line, RSTART + 2)
                in_comment = 0
            } else {
                comment = comment " " line
                line = ""
            }
        } else if (match(line, /\/\*/)) {
            code = code substr(line, 1, RSTART - 1)
            line = substr(line, RSTART + 2)
            in_comment = 1
        } else {
            code = code line
            line = ""
        }
    }
    # Preprocessor lines (the X-macro families of rma.h declare through #define) are no
    # declarations; they end a group like other code.
    if (in_define || code ~ /^[ \t]*#/) {
        in_define = code ~ /\\$/
        end_group()
        next
    }
    blank = code ~ /^[ \t]*$/
    if (blank && comment == "") { if (!in_decl) end_group(); next }
    if (in_decl) {
        codes_of(comment, FILENAME ":" FNR)
        ddepth += depth_of(code)
        if (ddepth <= 0) in_decl = 0
        next
    }
    if (code ~ /SYMH_API/ && code ~ /\(/) {
        if (!after_comment && nmembers == 0) end_group()
        head = code
        sub(/\(.*/, "", head)
        if (match(head, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
            name = substr(head, RSTART, RLENGTH)
            sub(/[ \t]+$/, "", name)
            print "M", group, name, FILENAME ":" FNR
            ++nmembers
        }
        codes_of(comment, FILENAME ":" FNR)
        ddepth = depth_of(code)
        in_decl = ddepth > 0
        after_comment = 1
        next
    }
    if (blank) { # a comment line: it starts a new group unless it follows a comment
        if (nmembers > 0) end_group()
        codes_of(comment, FILENAME ":" FNR)
        after_comment = 1
        next
    }
    end_group() # other code (a type, a macro): the comment above was about it
}
END { end_group() }
' include/symheap/*.h include/*.h >"$tmp/claims"

# Resolve: for each group, the codes reachable from its members; report each claimed code that
# none of them reaches.
printf '%s\n' "$ALLOW" | sed 's/#.*//' | awk 'NF == 2 { print "A", $1, $2 }' >"$tmp/allow"
awk -v depth="$CALL_DEPTH" '
FILENAME ~ /index$/ && $1 == "D" {
    deffile[$2] = deffile[$2] (deffile[$2] == "" ? "" : " ") $3
    next
}
FILENAME ~ /index$/ && $1 == "E" { has[$2, $3] = 1; next }
FILENAME ~ /index$/ && $1 == "C" {
    if (!(($2, $3) in seen_call)) { seen_call[$2, $3] = 1; calls[$2] = calls[$2] " " $3 }
    next
}
FILENAME ~ /index$/ && $1 == "S" {
    if (!(($2, $3) in seen_slot)) { seen_slot[$2, $3] = 1; slots[$2] = slots[$2] " " $3 }
    next
}
FILENAME ~ /allow$/ { allow[$2, $3] = 1; next }
$1 == "M" { members[$2] = members[$2] " " $3; where[$2, $3] = $4; next }
$1 == "G" { nclaims[$2]++; claim[$2, nclaims[$2]] = $3 " " $4; next }
# The keys a call from the definition `from` resolves to (space-separated): a static of the same
# file first, else a symh_/SYMH_ name; a slot call, every function put in such a slot.
function resolve(from, callee,    f) {
    if (callee ~ /^->/) return slots[callee]
    f = from
    if (f ~ /:/) sub(/:[^:]*$/, "", f)
    else f = deffile[from]
    if (index(f, " ") == 0 && ((f ":" callee) in deffile)) return f ":" callee
    if (callee in deffile) return callee
    return ""
}
function reach(start, code,    queue, qd, head, tail, k, n, i, j, c, r, rs, nr, visited) {
    head = 1; tail = 1; queue[1] = start; qd[1] = 0; visited[start] = 1
    while (head <= tail) {
        k = queue[head]
        if ((k, code) in has) return 1
        if (qd[head] < depth) {
            n = split(calls[k], c, " ")
            for (i = 1; i <= n; ++i) {
                nr = split(resolve(k, c[i]), rs, " ")
                for (j = 1; j <= nr; ++j) {
                    r = rs[j]
                    if (!(r in visited)) {
                        visited[r] = 1
                        queue[++tail] = r
                        qd[tail] = qd[head] + 1
                    }
                }
            }
        }
        ++head
    }
    return 0
}
END {
    for (g in members) {
        n = split(members[g], m, " ")
        for (i = 1; i <= n; ++i)
            if (!(m[i] in deffile)) {
                printf "%s: codes: %s is declared but no definition was found in src/\n",
                    where[g, m[i]], m[i]
                bad = 1
            }
        for (j = 1; j <= nclaims[g]; ++j) {
            split(claim[g, j], cw, " ")
            ok = 0
            for (i = 1; i <= n && !ok; ++i)
                ok = (m[i], cw[1]) in allow || (m[i] in deffile && reach(m[i], cw[1]))
            if (!ok) {
                names = ""
                for (i = 1; i <= n; ++i)
                    names = names (i > 1 ? ", " : "") m[i] \
                        (m[i] in deffile ? " (" deffile[m[i]] ")" : "")
                printf "%s: codes: the comment names %s, which %s cannot return: it " \
                    "appears in no definition reached from it (call depth %d)\n",
                    cw[2], cw[1], names, depth
                bad = 1
            }
            ++checked
        }
    }
    printf "codes: %d comment codes of public headers checked\n", checked > "/dev/stderr"
    exit bad
}
' "$tmp/index" "$tmp/allow" "$tmp/claims" || failures=$((failures + 1))

# ---- 2. examples ----------------------------------------------------------------------------

CC=${CC:-cc}
mkdir -p "$tmp/gen/symheap"
if [[ -n $gen_include && -f $gen_include/symheap/version.h ]]; then
    gen_flags=(-I"$gen_include")
else
    # A stand-in for the generated header: the examples need its names, not its numbers.
    sed 's/@PROJECT_VERSION[A-Z_]*@/0/g' include/symheap/version.h.in >"$tmp/gen/symheap/version.h"
    gen_flags=(-I"$tmp/gen")
fi
n_examples=0
for doc in README.md docs/*.md; do
    # Each complete program becomes one file named after where it starts.
    awk -v out="$tmp/ex" -v doc="$doc" '
        /^```c[ \t]*$/ { inb = 1; text = ""; start = FNR + 1; next }
        /^```/ && inb {
            inb = 0
            if (text ~ /(^|[^A-Za-z0-9_])main[ \t]*\(/) {
                f = out "." ++n ".c"
                printf "#line %d \"%s\"\n%s", start, doc, text > f
                close(f)
                print f
            }
            next
        }
        inb { text = text $0 "\n" }
    ' "$doc" >"$tmp/list"
    while read -r src; do
        n_examples=$((n_examples + 1))
        if ! "$CC" -std=c11 -fsyntax-only -Wall -Wextra -Werror -Iinclude "${gen_flags[@]}" \
            "$src" 2>"$tmp/cc.out"; then
            sed -n 's/^\([^:]*:[0-9]*\):[0-9]*: /\1: examples: /p' "$tmp/cc.out" | head -5
            failures=$((failures + 1))
        fi
        rm -f "$src"
    done <"$tmp/list"
done
echo "examples: $n_examples complete programs in README.md and docs/*.md checked" >&2

if [[ $failures -ne 0 ]]; then
    echo "check_docs: fix the doc or comment (or the code, if the doc states the contract)" >&2
    exit 1
fi
echo "check_docs: clean"
