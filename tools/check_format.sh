#!/bin/sh
# check_format.sh - the C lines this branch changed are as clang-format
# (.clang-format) would write them. Only the changed lines of changed files
# are looked at (git clang-format --diff against the merge base), so the
# tree is never reformatted wholesale and old code is not held against a
# change.
#
# usage: tools/check_format.sh [BASE]
#   BASE: what to compare with; by default the merge base of HEAD and
#   origin/main (else main, else HEAD~1). Exits 0 when the changed lines are formatted,
#   1 with the diff clang-format wants otherwise, 77 when git-clang-format
#   is missing (1 under CI=true: a check that cannot run is a failure).
set -eu
cd "$(dirname "$0")/.."
if ! command -v git-clang-format >/dev/null 2>&1; then
	echo "check_format.sh: git-clang-format not found (Debian: clang-format)" >&2
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
base=${1:-}
if [ -z "$base" ]; then
	for ref in origin/main main; do
		if git rev-parse --verify -q "$ref" >/dev/null; then
			base=$(git merge-base HEAD "$ref")
			break
		fi
	done
fi
if [ -z "$base" ] && git rev-parse --verify -q HEAD~1 >/dev/null; then
	base=$(git rev-parse HEAD~1) # (a clone without main: the last commit)
fi
if [ -z "$base" ]; then
	echo "check_format.sh: nothing to compare with (one commit): nothing to check"
	exit 0
fi
files=$(git diff --name-only --diff-filter=ACMR "$base" -- \
	'include/*.h' 'src/*.c' 'src/*.h' 'tests/*.c' 'tests/*.h' 'tools/*.c')
if [ -z "$files" ]; then
	echo "check_format.sh: no C file changed since ${base%"${base#???????}"}"
	exit 0
fi
# shellcheck disable=SC2086 # (one file a word: paths have no spaces)
out=$(git clang-format --quiet --diff "$base" -- $files 2>&1) || true
case $out in
'' | *'no modified files to format'* | *'clang-format did not modify any files'*)
	echo "check_format.sh: the changed lines of $(echo "$files" | wc -l) files are formatted"
	exit 0
	;;
esac
echo "$out"
echo "check_format.sh: run git clang-format $base (the lines above) and commit" >&2
exit 1
