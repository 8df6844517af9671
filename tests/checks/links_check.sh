#!/usr/bin/env bash
# The check of tools/check_links.sh itself: in a scratch git repository, a page with a broken
# link, a link to a missing heading and a citation of a document outside the repository must
# each be reported (and fail the check), and the same pages mended must pass. Each case is the
# fault the check exists to catch, injected.
set -uo pipefail
checker=${1:?usage: links_check.sh PATH/check_links.sh}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
git -C "$scratch" init -q || exit 1
mkdir -p "$scratch/docs"
printf '# Target\n\n## A heading\n\ntext\n' >"$scratch/docs/target.md"

expect() { # expect WANTED_STATUS WHAT PAGE_TEXT
    local want=$1 what=$2
    printf '%s\n' "$3" >"$scratch/docs/page.md"
    git -C "$scratch" add -A >/dev/null
    local got
    bash "$checker" "$scratch" >/dev/null 2>&1
    got=$?
    if ((got != want)); then
        echo "links_check: $what: status $got, $want expected"
        failures=$((failures + 1))
    fi
}
expect 0 "a good link and anchor" '# Page

See [the heading](target.md#a-heading) and [this page](#page).'
expect 1 "a link to a missing file" '# Page

See [gone](missing.md).'
expect 1 "a link to a missing heading" '# Page

See [the heading](target.md#no-such-heading).'
expect 1 "a link that leaves the repository" '# Page

See [outside](../../etc/passwd).'
expect 1 "a citation of DESIGN.md" '# Page

As DESIGN.md "Layers" says.'
expect 0 "a link inside a code fence" '# Page

```
[not checked](missing.md)
```'
rm -rf "$scratch/.git"
bash "$checker" "$scratch" >/dev/null 2>&1
got=$?
if ((got != 77)); then
    echo "links_check: not a git checkout: status $got, 77 expected"
    failures=$((failures + 1))
fi
if ((failures > 0)); then
    exit 1
fi
echo "links_check: 7 cases as expected"
