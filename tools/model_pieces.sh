#!/usr/bin/env bash
# model_pieces.sh [status | list | run [PIECE...]] - the goal configuration
# of the replication model, d4, searched piece by piece across sessions.
#
# d4 (4 players, seat 1 dishonest with one deviation of any kind and one
# branch move, one message lost, duplicated or reordered, no crash) is
# searched with the abstraction FORGETFUL (spec/model.md, "The forgetful
# peers": every run of the model is one of the abstraction, which has
# far fewer states) and still has hundreds of millions of states.
# spec/model.md ("The goal configuration in parts") shows that its runs
# are exactly the union of the runs of its parts, one by the kind of the
# one deviation (PIECES_SPLIT=devs, the default: DEVS=1, 2, 4, 8, four
# parts), or, finer (PIECES_SPLIT=fine, 21 pieces), DEVS=1 by the seat
# it names (DEV_AUTHOR=0 its own, 1, 2, 3 another's) and each part by
# the honest peer that keeps the one snapshot for later (FAULT_AT=0, 2,
# 3). So an assertion holds in every state of d4 exactly when it holds
# in every state of every piece of either split, and each piece is a
# search of its own, on a core of its own. The finer split makes
# smaller pieces (for less memory) at the price of searching the states
# before the deviation and the fault again in each. Between the two, the
# devs split's largest part, DEVS=1, has parts of its own by the seat it
# names (d4-devs1-a0 to -a3, listed as parts of d4-devs1): it is done
# when the ledger holds it whole or every one of its parts, so that it
# can be searched on two cores at once; `run` with no piece named goes on
# by the parts once one of them is in the ledger.
#
# A piece that finishes with no error is written to the ledger
# (spec/model-pieces.tsv) with the git blob id of the model it searched;
# `run` searches the pieces the ledger does not hold for the model as it
# is now (all 21 after any change to spec/replication.pml), PAN_JOBS at
# once, each with PAN_MEM_MB of memory. A piece that reports an error
# prints spin's replay of the counterexample and exits 1; one that runs
# out of memory or depth is reported as not exhaustive (exit 2) and is
# not recorded. `status` says which pieces are done for the model as it
# is now. `list` prints each piece's name and spin defines.
#
# The search is pan's with hash compaction (-DHC4, the 64-bit hash
# forced as tests/model/test_spin.sh does: 96 bits kept a state, so a
# piece of n states has two that collide, one of them never explored,
# with probability at most n^2 / 2^97, about 10^-12 for 400 million) and
# -DNOREDUCE -DNO_RESIZE (reductions of pan's own turned off: they only
# ever explore more). PIECES_MODEL, PIECES_LEDGER, PIECES_SPLIT and
# PIECES_CONFIG (d4, or d3 for the 3-player form, which the test uses: 4
# parts, or 12 pieces) may be
# set; PIECES_EXTRA adds spin defines (a mutant, in the test), and
# PIECES_OPT is gcc's optimisation of pan (default -O2; the test's small
# searches cost less at -O0), PIECES_DEPTH pan's -m (default 2,000,000
# steps; d4 reaches about 460).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/model_pan.sh
. "$here/tools/model_pan.sh"
model=${PIECES_MODEL:-$here/spec/replication.pml}
ledger=${PIECES_LEDGER:-$here/spec/model-pieces.tsv}
config=${PIECES_CONFIG:-d4}
split=${PIECES_SPLIT:-devs}
extra=${PIECES_EXTRA:-}
jobs=${PAN_JOBS:-1}
mem=${PAN_MEM_MB:-10500}
opt=${PIECES_OPT:--O2}
depth=${PIECES_DEPTH:-2000000}
cmd=${1:-status}
[[ $# -gt 0 ]] && shift

case $config in
d4) base="-DNP=4 -DDIS=1 -DBAD=1 -DSHOW=1 -DFAULTS=1 -DCRASHES=0 -DFORGETFUL=1" faulters="0 2 3" names="0 1 2 3" ;;
d3) base="-DNP=3 -DDIS=1 -DBAD=1 -DSHOW=1 -DFAULTS=1 -DCRASHES=0 -DFORGETFUL=1" faulters="0 2" names="0 1 2" ;;
*)
	echo "model_pieces: PIECES_CONFIG is d4 or d3, not '$config'" >&2
	exit 2
	;;
esac
[[ $split == devs || $split == fine ]] ||
	{ echo "model_pieces: PIECES_SPLIT is devs or fine, not '$split'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]?$ ]] || { echo "model_pieces: PAN_JOBS must be a number of searches, not '$jobs'" >&2; exit 2; }
[[ $mem =~ ^[1-9][0-9]{2,6}$ ]] || { echo "model_pieces: PAN_MEM_MB must be megabytes (100 or more), not '$mem'" >&2; exit 2; }
[[ $depth =~ ^[1-9][0-9]{1,8}$ ]] || { echo "model_pieces: PIECES_DEPTH must be a number of steps, not '$depth'" >&2; exit 2; }
[[ -f $model ]] || { echo "model_pieces: no model at $model" >&2; exit 2; }

# the pieces: NAME:DEFINES; and the parts of a piece, PARENT:NAME:DEFINES
# (the devs split's DEVS=1 by the name on the deviating commit, a piece
# done when all of them are: spec/model.md, "The goal configuration in
# parts")
pieces=() subs=()
if [[ $split == devs ]]; then
	for k in 1 2 4 8; do pieces+=("$config-devs$k:$base -DDEVS=$k"); done
	for a in $names; do subs+=("$config-devs1:$config-devs1-a$a:$base -DDEVS=1 -DDEV_AUTHOR=$a"); done
else
	for f in $faulters; do
		parts=()
		for a in $names; do parts+=("a$a:-DDEVS=1 -DDEV_AUTHOR=$a"); done
		for part in "${parts[@]}" "devs2:-DDEVS=2" "devs4:-DDEVS=4" "devs8:-DDEVS=8"; do
			pieces+=("$config-${part%%:*}-f$f:$base ${part#*:} -DFAULT_AT=$f")
		done
	done
fi

# the model's id: its git blob id (the same with or without git)
blob=$( (printf 'blob %d\0' "$(wc -c <"$model")"; cat "$model") | sha1sum | cut -c1-40)
[[ -n $extra ]] && blob="$blob+$(printf '%s' "$extra" | tr ' ' ',')"

# recorded NAME: the ledger holds NAME for this model
recorded() {
	[[ -f $ledger ]] && awk -F'\t' -v p="$1" -v m="$blob" '$1 == p && $2 == m && $7 == 0 { f = 1 } END { exit !f }' "$ledger"
}

# parts_of NAME: the names of NAME's parts, one a line (none for most)
parts_of() {
	local c
	for c in ${subs[@]+"${subs[@]}"}; do
		[[ ${c%%:*} == "$1" ]] && { c=${c#*:}; echo "${c%%:*}"; }
	done
	return 0
}

# by_parts NAME: NAME has parts and the ledger holds every one of them
by_parts() {
	local p n=0
	for p in $(parts_of "$1"); do
		recorded "$p" || return 1
		n=$((n + 1))
	done
	((n > 0))
}

# begun NAME: the ledger holds some part of NAME
begun() {
	local p
	for p in $(parts_of "$1"); do recorded "$p" && return 0; done
	return 1
}

# done_piece NAME: NAME is searched for this model: the ledger holds it,
# or all of its parts
done_piece() {
	recorded "$1" || by_parts "$1"
}

# row_of NAME: NAME's last line in the ledger for this model
row_of() {
	awk -F'\t' -v p="$1" -v m="$blob" '$1 == p && $2 == m && $7 == 0' "$ledger" | tail -1
}

defs_of() {
	local c rest
	for c in "${pieces[@]}"; do
		[[ ${c%%:*} == "$1" ]] && { echo "${c#*:}"; return 0; }
	done
	for c in ${subs[@]+"${subs[@]}"}; do
		rest=${c#*:}
		[[ ${rest%%:*} == "$1" ]] && { echo "${rest#*:}"; return 0; }
	done
	return 1
}

case $cmd in
list)
	for c in "${pieces[@]}"; do echo "${c%%:*}  ${c#*:}"; done
	for c in ${subs[@]+"${subs[@]}"}; do
		rest=${c#*:}
		echo "${rest%%:*}  ${rest#*:}  (a part of ${c%%:*})"
	done
	exit 0
	;;
status)
	# line PREFIX NAME: NAME's ledger line, its states added to the sum
	line() {
		local row s d secs when
		row=$(row_of "$2")
		IFS=$'\t' read -r _ _ s _ d secs _ when _ <<<"$row"
		printf '%sdone  %-16s %13s states, depth %s, %s s, %s\n' "$1" "$2" "$s" "$d" "$secs" "$when"
		states=$(awk -v a="$states" -v b="$s" 'BEGIN { printf "%.0f", a + b }') # (pan prints 1.7037726e+08)
	}
	n=0 total=0 states=0
	for c in "${pieces[@]}"; do
		name=${c%%:*}
		total=$((total + 1))
		plist=$(parts_of "$name")
		if recorded "$name"; then
			line "" "$name"
			n=$((n + 1))
		elif by_parts "$name"; then
			printf 'done  %-16s by its %d parts:\n' "$name" "$(wc -w <<<"$plist")"
			for p in $plist; do line "      " "$p"; done
			n=$((n + 1))
		else
			printf 'todo  %-16s\n' "$name"
			# the parts done so far, when some are
			if begun "$name"; then
				sum=$states # (the sum is of the pieces done)
				for p in $plist; do
					if recorded "$p"; then line "      " "$p"; else printf '      todo  %s\n' "$p"; fi
				done
				states=$sum
			fi
		fi
	done
	echo "$config: $n of $total pieces searched with no error for model $blob ($states states in those)"
	((n == total))
	exit $?
	;;
run) ;;
*)
	echo "usage: model_pieces.sh [status | list | run [PIECE...]]" >&2
	exit 2
	;;
esac

for t in spin gcc sha1sum; do
	command -v $t >/dev/null || { echo "model_pieces: $t missing (tools/deps.sh installs spin)" >&2; exit 2; }
done
todo=()
if [[ $# -gt 0 ]]; then
	for name in "$@"; do
		defs_of "$name" >/dev/null || { echo "model_pieces: no piece '$name' ('list' names them)" >&2; exit 2; }
		todo+=("$name")
	done
else
	# a piece whose parts are begun goes on by its parts
	for c in "${pieces[@]}"; do
		name=${c%%:*}
		done_piece "$name" && continue
		if begun "$name"; then
			for p in $(parts_of "$name"); do recorded "$p" || todo+=("$p"); done
		else
			todo+=("$name")
		fi
	done
fi
if [[ ${#todo[@]} -eq 0 ]]; then
	echo "$config: every piece is in $ledger for model $blob"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/catan-pieces.XXXXXX")
# pan's output of every piece of this run (its progress, a line a million
# states, as it goes) is kept in $TMPDIR/catan-pieces-last/NAME.out, also
# when the run is interrupted
last=${TMPDIR:-/tmp}/catan-pieces-last
rm -rf "$last"
mkdir -p "$last"
trap 'for f in "$work"/*/pan.out; do [[ -f $f ]] && cp "$f" "$last/$(basename "$(dirname "$f")").out"; done; rm -rf "$work"' EXIT
bits=$(pan_table_bits "$mem")

# search NAME: 0 no error (recorded), 1 an error, 2 not exhaustive
search() {
	local name=$1 defs dir=$work/$1 t0 t1
	defs="$(defs_of "$name") $extra"
	pan_build "$dir" "$model" "$defs" "$opt -w -DHC4 -DNOREDUCE -DNO_RESIZE -DSAFETY -DMEMLIM=$mem" || return 2
	echo "start $name $(date -u +%FT%TZ) ($defs, ${mem} MB, -w$bits)"
	t0=$(date +%s)
	(cd "$dir" && stdbuf -oL ./pan -m"$depth" -w"$bits" >pan.out 2>&1) || true
	t1=$(date +%s)
	pan_read "$dir"
	local errors=$pan_errors states=$pan_states trans=$pan_trans reached=$pan_depth
	if [[ -z $errors ]]; then
		tail -5 "$dir/pan.out"
		echo "FAIL $name: pan did not finish"
		return 2
	fi
	if [[ $errors != 0 ]]; then
		grep -m1 "violated" "$dir/pan.out" || true
		# shellcheck disable=SC2086
		(cd "$dir" && spin -t $defs replication.pml | tail -40) || true
		echo "FAIL $name: $errors error(s) after $states states ($defs)"
		return 1
	fi
	if pan_cut_short "$dir"; then
		echo "FAIL $name: not exhaustive after $states states, $((t1 - t0)) s (not recorded)"
		return 2
	fi
	mkdir -p "$(dirname "$ledger")"
	[[ -f $ledger ]] || printf '# piece\tmodel\tstates\ttransitions\tdepth\tseconds\terrors\tfinished\tsearch\n' >"$ledger"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$blob" "$states" "$trans" "$reached" \
		"$((t1 - t0))" 0 "$(date -u +%FT%TZ)" "HC4 64-bit hash, -w$bits, MEMLIM $mem" >>"$ledger"
	echo "ok   $name: $states states, $trans transitions, depth $reached, $((t1 - t0)) s, no error (recorded)"
}

err=0 open=0
for name in "${todo[@]}"; do
	if ((jobs == 1)); then
		r=0
		search "$name" || r=$?
		((r == 2)) && open=1
		((r == 1)) && { err=1; break; }
		continue
	fi
	while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
	(r=0; search "$name" >"$work/$name.log" 2>&1 || r=$?; echo $r >"$work/$name.rc"; cat "$work/$name.log") &
done
wait
if ((jobs > 1)); then
	for name in "${todo[@]}"; do
		case $(cat "$work/$name.rc" 2>/dev/null || echo 2) in
		0) ;;
		1) err=1 ;;
		*) open=1 ;;
		esac
	done
fi
# an error outranks a search that did not finish
((err)) && exit 1
((open)) && exit 2
exit 0
