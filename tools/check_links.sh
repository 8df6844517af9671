#!/usr/bin/env bash
# check_links.sh: the repository's docs stand alone. Two checks, over the files git tracks:
#
# 1. links     Every relative Markdown link `[text](target)` of a tracked .md file names a file
#              or folder inside the repository (relative to the page), and its `#anchor`, when
#              the target is a Markdown page (or the page itself), is a heading of that page
#              (GitHub's slug: lower case, punctuation dropped, spaces to hyphens, -1, -2 for
#              repeats). Links inside fenced code blocks and absolute URLs are not checked.
# 2. citations No tracked text file cites a document outside the repository: a path through
#              `../shared`, `shared/`, or the bare names DESIGN.md, STYLE.md, API.md (their
#              content is docs/design.md, docs/conventions.md and docs/api.md). This script
#              and its own check (tests/checks/links_check.sh) name them and are left out.
#
# usage: tools/check_links.sh [SOURCE_DIR]; exits 1 with one line per finding, 0 when clean, 77
# when SOURCE_DIR is not a git checkout.
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"
if ! command -v git >/dev/null || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check_links: $root is not a git checkout: no tracked files to check (skipped)" >&2
    exit 77
fi

findings=0

# The anchors of one page, one per line.
anchors_of() {
    awk '
    /^[ \t]*```/ { fence = !fence; next }
    fence { next }
    /^#+[ \t]/ {
        h = $0
        sub(/^#+[ \t]+/, "", h)
        sub(/[ \t]+#*[ \t]*$/, "", h)
        h = tolower(h)
        gsub(/[][!"#$%&'"'"'()*+,.\/:;<=>?@\\^`{|}~]/, "", h)
        gsub(/ /, "-", h)
        if (h in seen)
            print h "-" seen[h]++
        else {
            seen[h] = 1
            print h
        }
    }' "$1"
}

# 1. links
while IFS= read -r page; do
    dir=$(dirname "$page")
    while IFS=$'\t' read -r line target; do
        case $target in
        http://* | https://* | mailto:* | ftp://*) continue ;;
        esac
        path=${target%%#*}
        anchor=
        [[ $target == *"#"* ]] && anchor=${target#*#}
        if [[ -z $path ]]; then
            file=$page
        else
            file=$dir/$path
            resolved=$(realpath -m "$file")
            if [[ $resolved != "$root" && $resolved != "$root"/* ]]; then
                echo "$page:$line: link: $target leaves the repository"
                findings=$((findings + 1))
                continue
            fi
            if [[ ! -e $file ]]; then
                echo "$page:$line: link: $target: no such file in the repository"
                findings=$((findings + 1))
                continue
            fi
        fi
        if [[ -n $anchor && $file == *.md && -f $file ]]; then
            if ! anchors_of "$file" | grep -qxF -- "$anchor"; then
                echo "$page:$line: link: $target: no heading with anchor #$anchor in $file"
                findings=$((findings + 1))
            fi
        fi
    done < <(awk '
        /^[ \t]*```/ { fence = !fence; next }
        fence { next }
        {
            s = $0
            # inline code spans are not links
            gsub(/`[^`]*`/, "", s)
            while (match(s, /\]\([^) \t]+\)/)) {
                t = substr(s, RSTART + 2, RLENGTH - 3)
                printf "%d\t%s\n", FNR, t
                s = substr(s, RSTART + RLENGTH)
            }
        }' "$page")
done < <(git ls-files -- '*.md')

# 2. citations
pattern='(\.\./shared|(^|[^A-Za-z0-9_./-])shared/|(^|[^A-Za-z0-9_./-])(DESIGN|STYLE|API)\.md)'
while IFS= read -r hit; do
    echo "$hit: citation: a document outside the repository (cite docs/design.md, docs/conventions.md or docs/api.md)"
    findings=$((findings + 1))
done < <(git grep -n -I -E "$pattern" -- . ':!tools/check_links.sh' ':!tests/checks/links_check.sh' | cut -d: -f1-2 || true)

if ((findings > 0)); then
    echo "check_links: $findings finding(s)"
    exit 1
fi
echo "check_links: links and citations clean"
