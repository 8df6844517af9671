#!/usr/bin/env bash
# check_includes.sh: checks the layer DAG of docs/architecture.md and the source rules of docs/conventions.md by grep,
# and (--calls) the layers of the built library's references by its object files' symbols.
set -euo pipefail

# The layer DAG (docs/architecture.md): a file in src/<layer>/ may include
# "<layer>/..." headers of itself and of the layers listed here, nothing else. `runtime` is the
# top (symh_init/symh_finalize bring every layer up): it may include all, nobody includes it.
# `shmem` (OpenSHMEM routines with logic of their own) stands on the public API beside it: it
# includes <symheap.h> and core (logging, status) only, and nobody includes it.
# `public` is not a folder: a layer with it in its row may call the public API (the symbols
# include/ declares and the library exports, in whatever layer they are defined), as an
# application does; it allows no include. `space` (the symmetric address space: its description
# and the one resolver, src/space/) is plain data and arithmetic and includes no other layer; the
# transport fills it and every layer that classifies a symmetric address asks it.
LAYER_TABLE='
core
space
bootstrap     core
device        core
registration  core device
heap          core device registration collectives
transport     core bootstrap registration device space
collectives   core bootstrap transport space
runtime       *
shmem         core public
'

# The same table rules calls (--calls): a file of a layer may reference a function or variable
# only when it is defined in its own layer or in one the layer may include, or (with `public`)
# when it is exported. Each line here is "caller-file symbol" for the one reference allowed to
# run up: symh_init_comm (src/bootstrap/boot_mpi.c) calls the public symh_init (runtime). Its
# argument is an MPI_Comm, and only the bootstrap may include <mpi.h>, so it cannot live in the
# runtime; it records the communicator for the bootstrap's next start and then calls symh_init
# as an application would. The reference is left out of the file graph too, so it forms no
# circle with the runtime.
CALL_EXCEPTIONS='
src/bootstrap/boot_mpi.c  symh_init
'

# The table as awk reads it (both checks): layer[name] for each row, allowed[from, to] for each
# layer a row's first column may depend on (itself included; "*" and "public" as written).
LAYER_AWK='
function layers_load(    n, rows, r, k, f, i) {
    n = split(ENVIRON["LAYER_TABLE"], rows, "\n")
    for (r = 1; r <= n; ++r) {
        k = split(rows[r], f)
        if (k == 0 || f[1] == "")
            continue
        layer[f[1]] = 1
        allowed[f[1] SUBSEP f[1]] = 1
        for (i = 2; i <= k; ++i)
            allowed[f[1] SUBSEP f[i]] = 1
    }
}
'

# Other rules (each violation names its rule):
#   mpi       <mpi.h> and <symheap_mpi.h> are included only under src/bootstrap/
#   printf    no printf/fprintf/vprintf/vfprintf/puts/putchar in src/ (logging goes through
#             symh_error & co; snprintf/vsnprintf are fine)
#   getenv    no getenv/secure_getenv in src/ outside src/core/core_config.c (the config table)
#   unique    source file names (.c .h .cc) are unique under src include tools examples tests bench
#   private   a header named <stem>_impl.h (a module's private layout, e.g. the team's in
#             src/collectives/coll_team_impl.h) is included only by files of its folder whose
#             name starts with <stem> (coll_team.c, coll_team_sync.c)
# A line may opt out of the printf/getenv rules with a comment saying why, e.g.
#   fputs(line, out); /* check_includes: allow printf (the report goes to the caller's FILE) */

usage() {
    cat <<EOF
usage: tools/check_includes.sh [SOURCE_DIR]
       tools/check_includes.sh --calls OBJECT_DIR [SOURCE_DIR]

Checks the include DAG of the layers in src/ (the table at the top of this script), that
<mpi.h> is included only in src/bootstrap/, that src/ has no printf-family output and no
getenv outside src/core/core_config.c, and that source file names are unique. Prints each
violation as file:line: rule: detail. Exit status: 0 clean, 1 violations, 2 usage error.

With --calls, checks the built library's object files under OBJECT_DIR instead (the build
tree's CMakeFiles/symheap_obj.dir): every function or variable a file of src/ references is
defined in a layer that file's layer may depend on (the same table; one exception, written
beside it), and no circle of files spans two layers. Prints each violation as file: rule:
detail. Exit status: 0 clean, 1 violations, 2 usage error or no object files to check.
EOF
}

calls_dir=
args=()
while [[ $# -gt 0 ]]; do
    if [[ $1 == --calls ]]; then
        [[ $# -ge 2 && -n $2 ]] || {
            usage >&2
            exit 2
        }
        calls_dir=$2
        shift 2
    else
        args+=("$1")
        shift
    fi
done
. "$(dirname "${BASH_SOURCE[0]}")/tool_args.sh"
symh_tool_args 1 ${args[@]+"${args[@]}"}
if [[ -n $calls_dir ]]; then
    [[ -d $calls_dir ]] || {
        echo "check_includes: --calls $calls_dir: no such directory (build the library first)" >&2
        exit 2
    }
    calls_dir=$(cd "$calls_dir" && pwd)
fi
root=${args[0]:-}
cd "${root:-$(dirname "${BASH_SOURCE[0]}")/..}"
[[ -d src ]] || {
    echo "check_includes: no src/ in $(pwd)" >&2
    exit 2
}

# Source files under the given folders, one per line (git's view when there is one, so build
# trees and ignored files never count; new files are included before they are committed).
list_sources() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- "$@" |
            grep -E '\.(c|h|cc)$' || true
    else
        find "$@" \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -type f 2>/dev/null |
            sed 's|^\./||' || true
    fi
}

# The call check (--calls): readelf's symbol table of each object of the library says which
# global functions and variables the file defines and which it references; a reference resolved
# to another file of the library is an edge of the file graph. Function pointers a higher layer
# installs (symh_boot_set_progress and the like) are not references by name and are not edges.
# Objects whose source file is gone (a build tree older than the checkout) are skipped.
if [[ -n $calls_dir ]]; then
    readelf=${READELF:-readelf}
    command -v "$readelf" >/dev/null || {
        echo "check_includes: $readelf not found (binutils)" >&2
        exit 2
    }
    symbols=$(mktemp)
    trap 'rm -f "$symbols"' EXIT
    n_objects=0
    while IFS= read -r obj; do
        rel=/${obj#"$calls_dir"/}
        [[ $rel == */src/* ]] || continue
        source=src/${rel#*/src/}
        source=${source%.o}
        [[ -f $source || ! -f $source.c ]] || source=$source.c
        [[ -f $source ]] || continue
        # Num: Value Size Type Bind Vis Ndx Name (Vis may carry a bracketed note on some
        # targets, hence Ndx and Name from the end); globals only (a static is no edge).
        "$readelf" -sW "$obj" | awk -v file="$source" '
            NF >= 8 && ($5 == "GLOBAL" || $5 == "WEAK") {
                print file, ($(NF - 1) == "UND" ? "U" : "D"), $4, $6, $NF
            }' >>"$symbols"
        n_objects=$((n_objects + 1))
    done < <(find "$calls_dir" -name '*.o' -type f | LC_ALL=C sort)
    if [[ $n_objects -eq 0 ]]; then
        echo "check_includes: no object files of src/ under $calls_dir (build the library" \
            "first: cmake --build <build dir>; the objects are in CMakeFiles/symheap_obj.dir)" >&2
        exit 2
    fi
    report=$(LAYER_TABLE=$LAYER_TABLE CALL_EXCEPTIONS=$CALL_EXCEPTIONS awk "$LAYER_AWK"'
    function layer_of(file,    parts) {
        split(file, parts, "/")
        return parts[2]
    }
    # Tarjan: the strongly connected components of the file graph, one report per component
    # whose files are in more than one layer.
    function connect(v,    list, k, i, w, members, n_members, layers, n_layers, line, seen) {
        index_of[v] = low[v] = ++counter
        stack[++sp] = v
        on_stack[v] = 1
        k = split(adj[v], list, " ")
        for (i = 1; i <= k; ++i) {
            w = list[i]
            if (!(w in index_of)) {
                connect(w)
                if (low[w] < low[v])
                    low[v] = low[w]
            } else if (on_stack[w] && index_of[w] < low[v]) {
                low[v] = index_of[w]
            }
        }
        if (low[v] != index_of[v])
            return
        n_members = 0
        do {
            w = stack[sp--]
            on_stack[w] = 0
            members[++n_members] = w
        } while (w != v)
        n_layers = 0
        for (i = 1; i <= n_members; ++i) {
            w = layer_of(members[i])
            if (!(w in seen)) {
                seen[w] = 1
                layers[++n_layers] = w
            }
        }
        if (n_layers > 1) {
            line = sorted(members, n_members, " ")
            printf "%s: cycle: files of layers%s reference each other in a circle:%s\n",
                members[1], sorted(layers, n_layers, " "), line
        }
    }
    function sorted(a, n, sep,    i, j, t, out) {
        for (i = 2; i <= n; ++i)
            for (j = i; j > 1 && a[j - 1] > a[j]; --j) {
                t = a[j]
                a[j] = a[j - 1]
                a[j - 1] = t
            }
        out = ""
        for (i = 1; i <= n; ++i)
            out = out sep a[i]
        return out
    }
    BEGIN {
        layers_load()
        n = split(ENVIRON["CALL_EXCEPTIONS"], rows, "\n")
        for (r = 1; r <= n; ++r)
            if (split(rows[r], f) == 2)
                exception[f[1] SUBSEP f[2]] = 1
    }
    $2 == "D" && !($5 in def) {
        def[$5] = $1
        public[$5] = $4 == "DEFAULT"
        kind[$5] = $3 == "FUNC" ? "function" : "variable"
    }
    $2 == "U" { ref[++n_refs] = $1 SUBSEP $5 }
    { files[$1] = 1 }
    END {
        for (file in files)
            if (!(layer_of(file) in layer))
                printf "%s: layer: unknown layer %s (add it to the table in tools/check_includes.sh)\n",
                    file, layer_of(file)
        for (i = 1; i <= n_refs; ++i) {
            split(ref[i], pair, SUBSEP)
            file = pair[1]
            sym = pair[2]
            if (!(sym in def) || def[sym] == file || exception[file SUBSEP sym])
                continue
            to = def[sym]
            if (!((file SUBSEP to) in edge)) {
                edge[file SUBSEP to] = 1
                adj[file] = adj[file] " " to
            }
            from_layer = layer_of(file)
            to_layer = layer_of(to)
            if (allowed[from_layer SUBSEP to_layer] || allowed[from_layer SUBSEP "*"] ||
                (public[sym] && allowed[from_layer SUBSEP "public"]))
                continue
            printf "%s: call: %s %s is defined in %s; %s may not depend on %s (see the DAG in docs/architecture.md)\n",
                file, kind[sym], sym, to, from_layer, to_layer
        }
        for (file in files)
            if (!(file in index_of))
                connect(file)
    }
    ' "$symbols" | LC_ALL=C sort -u)
    if [[ -n $report ]]; then
        echo "$report"
        echo "check_includes: $(wc -l <<<"$report") violation(s) of the layers by reference" \
            "(rules: tools/check_includes.sh, docs/architecture.md)"
        exit 1
    fi
    echo "check_includes: $n_objects object files of src/ reference only the layers they may" \
        "depend on, and no circle of files spans two layers"
    exit 0
fi

src_files=()
while IFS= read -r file; do
    if [[ -f $file ]]; then
        src_files+=("$file")
    fi
done < <(list_sources src | sort -u)

report=$(mktemp)
trap 'rm -f "$report"' EXIT

if [[ ${#src_files[@]} -gt 0 ]]; then
    # Comments and string literals are blanked before the function rules look at a line, so
    # "no printf here" in a comment is not a call. Include lines are read before blanking.
    LAYER_TABLE=$LAYER_TABLE awk "$LAYER_AWK"'
    BEGIN { layers_load() }
    FNR == 1 {
        in_comment = 0
        split(FILENAME, parts, "/")
        mod = (FILENAME ~ /^src\/[^\/]+\//) ? parts[2] : ""
        if (mod == "")
            printf "%s:1: layer: file outside a layer folder src/<layer>/\n", FILENAME
        else if (!(mod in layer))
            printf "%s:1: layer: unknown layer %s (add it to the table in tools/check_includes.sh and to docs/architecture.md)\n",
                FILENAME, mod
    }
    {
        line = $0
        started_in_comment = in_comment
        # Blank comments and literals, keeping the code.
        code = ""
        i = 1
        len = length(line)
        while (i <= len) {
            if (in_comment) {
                j = index(substr(line, i), "*/")
                if (j == 0) {
                    i = len + 1
                } else {
                    i += j + 1
                    in_comment = 0
                }
                continue
            }
            c = substr(line, i, 1)
            c2 = substr(line, i, 2)
            if (c2 == "/*") {
                in_comment = 1
                code = code " "
                i += 2
                continue
            }
            if (c2 == "//")
                break
            if (c == "\"" || c == "'\''") {
                code = code c c
                for (++i; i <= len; ++i) {
                    d = substr(line, i, 1)
                    if (d == "\\") {
                        ++i
                        continue
                    }
                    if (d == c)
                        break
                }
                ++i
                continue
            }
            code = code c
            ++i
        }

        if (!started_in_comment && line ~ /^[ \t]*#[ \t]*include[ \t]*["<]/) {
            target = line
            sub(/^[ \t]*#[ \t]*include[ \t]*/, "", target)
            quote = substr(target, 1, 1)
            target = substr(target, 2)
            sub(/[">].*$/, "", target)
            if (target ~ /^(mpi|symheap_mpi)\.h$/ && mod != "bootstrap")
                printf "%s:%d: mpi: <%s> may be included only under src/bootstrap/\n",
                    FILENAME, FNR, target
            if (quote == "\"" && target ~ /_impl\.h$/) {
                stem = target
                sub(/_impl\.h$/, "", stem)
                if (index(FILENAME, "src/" stem) != 1)
                    printf "%s:%d: private: \"%s\" is private to src/%s*; include the module'\''s narrow header\n",
                        FILENAME, FNR, target, stem
            }
            if (quote == "\"" && target ~ /\//) {
                dep = target
                sub(/\/.*$/, "", dep)
                if (!(dep in layer))
                    printf "%s:%d: layer: \"%s\" is not a layer header (layers: src/<layer>/...)\n",
                        FILENAME, FNR, target
                else if (mod in layer && !allowed[mod SUBSEP dep] && !allowed[mod SUBSEP "*"])
                    printf "%s:%d: layer: %s may not include %s (\"%s\"); see the DAG in docs/architecture.md\n",
                        FILENAME, FNR, mod, dep, target
            }
        }
        allow_printf = line ~ /check_includes: allow printf/
        allow_getenv = line ~ /check_includes: allow getenv/
        if (!allow_printf && code ~ /(^|[^A-Za-z0-9_])(printf|fprintf|vprintf|vfprintf|puts|putchar)[ \t]*\(/)
            printf "%s:%d: printf: no printf-family output in src/; log with symh_error/warn/info/debug (snprintf is fine)\n",
                FILENAME, FNR
        if (!allow_getenv && FILENAME != "src/core/core_config.c" && code ~ /(^|[^A-Za-z0-9_])(secure_)?getenv[ \t]*\(/)
            printf "%s:%d: getenv: getenv only in src/core/core_config.c; declare SYMH_* variables in src/core/core_config_table.h\n",
                FILENAME, FNR
    }
    ' "${src_files[@]}" >>"$report"
fi

# File names unique across the tree (docs/conventions.md): a name says which module it belongs to. The one
# exception is include/mpp/: OpenSHMEM names <mpp/shmem.h> and <mpp/shmemx.h> itself, and each
# only includes the header of its name one directory up.
all_dirs=()
for dir in src include tools examples tests bench; do
    [[ -d $dir ]] && all_dirs+=("$dir")
done
list_sources "${all_dirs[@]}" | sort -u | grep -v '^include/mpp/' | awk -F/ '
    { name = $NF; count[name]++; where[name] = where[name] " " $0 }
    END {
        for (name in count)
            if (count[name] > 1) {
                split(substr(where[name], 2), paths, " ")
                for (i = 2; i <= count[name]; ++i)
                    printf "%s:1: unique: file name %s is also used by %s\n",
                        paths[i], name, paths[1]
            }
    }' | sort >>"$report"

if [[ -s $report ]]; then
    violations=$(wc -l <"$report")
    cat "$report"
    echo "check_includes: $violations violation(s) (rules: tools/check_includes.sh, docs/architecture.md, docs/conventions.md)"
    exit 1
fi
echo "check_includes: ${#src_files[@]} files in src/ follow the layer DAG and source rules"
