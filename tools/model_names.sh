#!/usr/bin/env bash
# model_names.sh [SRCDIR] - every invariant catan_state_check names (the
# text it reports, src/core/check.c) appears in spec/catan.tla (as
# C: "...") and in the mapping table spec/model.md. Prints what is missing.
set -euo pipefail
src=${1:-.}
# (A text split over two lines, "..." "...", is joined first.)
names=$(perl -0777 -ne 's/"[ \t]*\n\s*"//g; print "$1\n" while /fail\(&m,\s*"([^"]*)"/g' \
	"$src/src/core/check.c" | sed 's/^ //' | sort -u)
[[ -n $names ]] || { echo "model_names: no invariant found in check.c" >&2; exit 1; }
missing=0
n=0
while IFS= read -r name; do
	n=$((n + 1))
	if ! grep -qF -- "\"$name\"" "$src/spec/catan.tla" &&
		! grep -qF -- "\" $name\"" "$src/spec/catan.tla"; then
		echo "model_names: \"$name\" is not in spec/catan.tla"
		missing=1
	fi
	if ! grep -qF -- "$name" "$src/spec/model.md"; then
		echo "model_names: \"$name\" is not in spec/model.md"
		missing=1
	fi
done <<<"$names"
((missing == 0)) && echo "model_names: all $n invariants of check.c are in the model and the table"
exit $missing
