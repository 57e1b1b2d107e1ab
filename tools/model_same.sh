#!/usr/bin/env bash
# model_same.sh [REV] - whether spec/replication.pml in the work tree
# generates the same verifier as at REV (default HEAD), for every
# configuration of tests/model/test_spin.sh (CI and big, mutants too).
#
# For a change meant to change nothing (a macro shared, a comment, code
# moved): spin -a is run on both models with each configuration's
# defines, and the files it writes (pan.c, pan.h, pan.m, pan.b, pan.t,
# pan.p) are compared after what only names a place is blanked out:
# source line numbers, spin's global statement ids (settr's first
# argument, minseq/maxseq are not blanked: a statement more shows there)
# and its C labels (S_n_m). The same verifier searches the same states,
# so a search of one model is a search of the other; no pan is built or
# run (a few seconds in all). Exits 0 when every configuration generates
# the same verifier; 1 when not, naming each configuration that differs
# with the start of its differences.
#
# A change that adds a statement, even one with no effect (an inline's
# expansion adds a label), is reported: such a change needs the state
# counts of tests/model/test_spin.sh compared instead.
set -euo pipefail
rev=${1:-HEAD}
root=$(git rev-parse --show-toplevel)
cd "$root"
command -v spin >/dev/null || { echo "model_same: spin is missing (tools/deps.sh installs it)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/catan-model-same.XXXXXX")
trap 'rm -rf "$work"' EXIT
git show "$rev:spec/replication.pml" >"$work/before.pml" ||
	{ echo "model_same: no spec/replication.pml at $rev" >&2; exit 2; }
cp spec/replication.pml "$work/after.pml"

# Every configuration: "name:defines" or "name:defines:what" (a mutant),
# one to a line in test_spin.sh's arrays.
mapfile -t cfgs < <(grep -oE '^[[:space:]]*"[A-Za-z0-9_-]+:-D[^"]*"' tests/model/test_spin.sh |
	sed -E 's/^[[:space:]]*"//; s/"$//')
((${#cfgs[@]} > 0)) || { echo "model_same: no configuration found in tests/model/test_spin.sh" >&2; exit 2; }

# blank FILE: the generated file with places blanked out
blank() {
	sed -E 's/replication\.pml:[0-9]+/replication.pml:N/g
		s/"replication\.pml", *[0-9]+/"replication.pml",N/g
		s/near line [0-9]+/near line N/g
		s/settr\([0-9]+,/settr(N,/g
		s/S_[0-9]+_[0-9]+/S_N/g
		s/D_STEP[0-9]+/D_STEPN/g' "$1" |
		# the tables of source lines (src_ln*)
		awk '/^short src_ln[0-9]* \[\] = \{/ { inb = 1; print; next }
			inb { gsub(/[0-9]+/, "N") }
			inb && /\};/ { inb = 0 }
			{ print }'
}

differ=0
for c in "${cfgs[@]}"; do
	name=${c%%:*}
	rest=${c#*:}
	defs=${rest%%:*}
	for side in before after; do
		mkdir -p "$work/$side/$name"
		cp "$work/$side.pml" "$work/$side/$name/replication.pml"
		# shellcheck disable=SC2086 # (the defines are several words)
		(cd "$work/$side/$name" && spin -a $defs replication.pml >spin.out 2>&1) || {
			echo "model_same: $name: spin -a fails on the model $side:"
			tail -3 "$work/$side/$name/spin.out"
			differ=1
			continue 2
		}
	done
	for f in pan.c pan.h pan.m pan.b pan.t pan.p; do
		if ! cmp -s <(blank "$work/before/$name/$f") <(blank "$work/after/$name/$f"); then
			echo "model_same: $name: $f differs:"
			diff <(blank "$work/before/$name/$f") <(blank "$work/after/$name/$f") | head -8 || true
			differ=1
			break
		fi
	done
done
if ((differ)); then
	echo "model_same: the verifier is not the same as at $rev"
	exit 1
fi
echo "model_same: the same verifier as at $rev for all ${#cfgs[@]} configurations"
