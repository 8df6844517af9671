#!/usr/bin/env bash
# check_format.sh: checks (--fix: applies) the root .clang-format on every C and C++ source file.
set -euo pipefail

usage() {
    cat <<EOF
usage: tools/check_format.sh [--fix] [SOURCE_DIR]

Runs clang-format --dry-run --Werror with the repository's .clang-format on every *.c, *.h and
*.cc file known to git (tracked, or new and not ignored; *.in templates are skipped) and lists
the files that differ. --fix rewrites them in place (clang-format -i). SOURCE_DIR defaults to
the repository that holds this script. \$CLANG_FORMAT overrides the clang-format binary.
Exit status: 0 clean, 1 files need formatting, 2 usage error, 77 clang-format not found.
EOF
}

fix=0
args=()
for arg in "$@"; do
    if [[ $arg == --fix ]]; then
        fix=1
    else
        args+=("$arg")
    fi
done
. "$(dirname "${BASH_SOURCE[0]}")/tool_args.sh"
symh_tool_args 1 ${args[@]+"${args[@]}"}
root=${args[0]:-}
root=${root:-$(dirname "${BASH_SOURCE[0]}")/..}
cd "$root"

clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
    echo "check_format: $clang_format not found (Debian: apt-get install clang-format)" >&2
    exit 77
fi
[[ -f .clang-format ]] || {
    echo "check_format: no .clang-format in $(pwd)" >&2
    exit 2
}

# The files to check, one per line: git's view of the tree when there is one (a clean clone
# in CI, or a working tree with new files), else a walk that skips build and install trees.
list_sources() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- '*.c' '*.h' '*.cc'
    else
        find . \( -name '.git' -o -name 'build*' -o -name '_install*' \) -prune -o \
            -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print | sed 's|^\./||'
    fi
}

files=()
while IFS= read -r file; do
    # *.in are CMake templates (not C until configured); a deleted file may still be tracked.
    [[ $file == *.in || ! -f $file ]] || files+=("$file")
done < <(list_sources | sort -u)

if [[ $fix -eq 1 ]]; then
    [[ ${#files[@]} -eq 0 ]] || "$clang_format" -i --style=file "${files[@]}"
    echo "check_format: formatted ${#files[@]} files with $("$clang_format" --version)"
    exit 0
fi

bad=()
for file in "${files[@]}"; do
    if ! "$clang_format" --dry-run --Werror --style=file "$file" >/dev/null 2>&1; then
        bad+=("$file")
    fi
done

if [[ ${#bad[@]} -eq 0 ]]; then
    echo "check_format: ${#files[@]} files follow .clang-format"
    exit 0
fi
echo "check_format: ${#bad[@]} of ${#files[@]} files do not follow .clang-format:"
printf '  %s\n' "${bad[@]}"
echo "first differences ($("$clang_format" --version)):"
"$clang_format" --dry-run --style=file "${bad[0]}" 2>&1 | head -n 20 || true
echo "fix: tools/check_format.sh --fix   (or: clang-format -i <file>), then review the diff"
exit 1
