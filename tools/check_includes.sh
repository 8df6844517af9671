#!/usr/bin/env bash
# check_includes.sh: checks the layer DAG of DESIGN.md and the source rules of STYLE.md by grep.
set -euo pipefail

# The layer DAG (DESIGN.md "Layers", docs/architecture.md): a file in src/<layer>/ may include
# "<layer>/..." headers of itself and of the layers listed here, nothing else. `runtime` is the
# top (symh_init/symh_finalize bring every layer up): it may include all, nobody includes it.
# `shmem` (OpenSHMEM routines with logic of their own) stands on the public API beside it: it
# includes <symheap.h> and core (logging, status) only, and nobody includes it.
LAYER_TABLE='
core
bootstrap     core
device        core
registration  core device
heap          core device registration collectives
transport     core bootstrap registration device
collectives   core bootstrap transport
runtime       *
shmem         core
'

# Other rules (each violation names its rule):
#   mpi       <mpi.h> and <symheap_mpi.h> are included only under src/bootstrap/
#   printf    no printf/fprintf/vprintf/vfprintf/puts/putchar in src/ (logging goes through
#             symh_error & co; snprintf/vsnprintf are fine)
#   getenv    no getenv/secure_getenv in src/ outside src/core/core_config.c (the config table)
#   unique    source file names (.c .h .cc) are unique under src include tools examples tests bench
# A line may opt out of the printf/getenv rules with a comment saying why, e.g.
#   fputs(line, out); /* check_includes: allow printf (the report goes to the caller's FILE) */

usage() {
    cat <<EOF
usage: tools/check_includes.sh [SOURCE_DIR]

Checks the include DAG of the layers in src/ (the table at the top of this script), that
<mpi.h> is included only in src/bootstrap/, that src/ has no printf-family output and no
getenv outside src/core/core_config.c, and that source file names are unique. Prints each
violation as file:line: rule: detail. Exit status: 0 clean, 1 violations, 2 usage error.
EOF
}

. "$(dirname "${BASH_SOURCE[0]}")/tool_args.sh"
symh_tool_args 1 "$@"
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
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
    LAYER_TABLE=$LAYER_TABLE awk '
    BEGIN {
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
    FNR == 1 {
        in_comment = 0
        split(FILENAME, parts, "/")
        mod = (FILENAME ~ /^src\/[^\/]+\//) ? parts[2] : ""
        if (mod == "")
            printf "%s:1: layer: file outside a layer folder src/<layer>/\n", FILENAME
        else if (!(mod in layer))
            printf "%s:1: layer: unknown layer %s (add it to the table in tools/check_includes.sh and to DESIGN.md)\n",
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

# File names unique across the tree (STYLE.md): a name says which module it belongs to. The one
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
    echo "check_includes: $violations violation(s) (rules: tools/check_includes.sh, DESIGN.md, STYLE.md)"
    exit 1
fi
echo "check_includes: ${#src_files[@]} files in src/ follow the layer DAG and source rules"
