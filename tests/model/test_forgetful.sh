#!/usr/bin/env bash
# test_forgetful.sh MODEL - checks the abstraction FORGETFUL of
# spec/replication.pml (spec/model.md, "The forgetful peers") on small
# configurations: every state the model reaches, with what the peers
# remember of their refusals left out, is a state the abstraction reaches.
#
# For each configuration both verifiers are built (spin -a, the model
# with -DFORGETFUL=0 and with -DFORGETFUL=1) and pan.c is patched to
# write every new state it stores as a line of hex: the commit table
# (with its ghosts), every peer's branches, verdict, quarantine of
# invalid commits, merge fold, pending write, position, the counters of
# faults, crashes and deviations, and the dishonest seat's branches and
# signatures: all a property or a step reads but the refusals (qoff,
# held), the snapshot kept for later (stash; the model drops it when its
# refusals make it stale, the abstraction may take it later and skip
# it), and two values computed from the others (req_done from the
# commit table, a bit pan cannot write out by address; waitfor from the
# branches, read only with LIVE). Then the model's lines must all be among the abstraction's
# (comm), the model must have states with a refusal remembered (the
# check is not vacuous), and the abstraction fewer states. The mutant
# M_NOSKIP (a forgetful peer that never skips) must fail the inclusion.
# Prints one line per configuration. Exits 77 if spin is missing (1
# under CI=true).
set -euo pipefail
model=${1:?usage: test_forgetful.sh spec/replication.pml}
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
if ! command -v spin >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
	echo "test_forgetful: spin or gcc missing (tools/deps.sh installs spin)" >&2
	[[ ${CI:-} == true ]] && exit 1
	exit 77
fi
# shellcheck source=tools/model_pan.sh
. "$(dirname "$0")/../../tools/model_pan.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/catan-forgetful.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name : defines (each has refusals in the model: a dishonest seat, or
# a kept snapshot; d3showf keeps one with 3 players, where a skip can
# change what a peer adopts)
configs=(
	"d2f:-DNP=2 -DDIS=1 -DBAD=1 -DSHOW=1 -DFAULTS=1 -DCRASHES=1"
	"d3show:-DNP=3 -DDIS=1 -DBAD=0 -DSHOW=1 -DFAULTS=0 -DCRASHES=0"
	"d3dev:-DNP=3 -DDIS=1 -DBAD=1 -DSHOW=1 -DFAULTS=0 -DCRASHES=0"
	"d3showf:-DNP=3 -DDIS=1 -DBAD=0 -DSHOW=1 -DFAULTS=1 -DCRASHES=0"
)
# the global variables compared (all but qoff, held, stash, stash_from,
# the scratch and carried values, which every step clears)
fields="nc kind author signer par mpar step val legal anc tainted eq revealed
	br verdict qbad arr pend todo up faults crashes bad sb dsig shown"

# dump NAME DEFINES -> $work/NAME/states (sorted, unique lines of hex),
# $work/NAME/count (states stored), $work/NAME/refusing (states with a
# refusal remembered)
dump() {
	local name=$1 defs=$2 dir=$work/$1
	pan_generate "$dir" "$model" "$defs" || return 1
	local put="" f
	for f in $fields; do
		put="$put fwrite((char *)\\&now.$f, 1, sizeof(now.$f), tf_out);"
	done
	# after pan stores a state it has not seen (h_store returns 0)
	grep -q 'II = h_store((char \*)&now, vsize);' "$dir/pan.c" ||
		{ echo "FAIL $name: pan.c's h_store call not found (another spin version?)"; return 1; }
	sed -i "s|II = h_store((char \*)&now, vsize);|& if (II == 0) { \
static FILE *tf_out, *tf_ref; int tf_i, tf_r = 0; \
if (!tf_out) { tf_out = fopen(\"states.bin\", \"wb\"); tf_ref = fopen(\"refusing.bin\", \"wb\"); } \
$put \
for (tf_i = 0; tf_i < (int)(sizeof(now.qoff) / sizeof(now.qoff[0])); tf_i++) if (now.qoff[tf_i] != 0 \|\| now.held[tf_i] != 255) tf_r = 1; \
fputc(tf_r, tf_ref); fflush(tf_out); fflush(tf_ref); }|" "$dir/pan.c"
	pan_compile "$dir" "-O0 -w -DCOLLAPSE -DSAFETY -DNOREDUCE -DMEMLIM=2000" || return 1
	(cd "$dir" && ./pan -m100000 -w20 >pan.out 2>&1) || true
	pan_read "$dir"
	if [[ $pan_errors != 0 ]] || pan_cut_short "$dir"; then
		tail -5 "$dir/pan.out"
		echo "FAIL $name: pan did not finish with no error"
		return 1
	fi
	echo "$pan_states" >"$dir/count"
	tr -d '\000' <"$dir/refusing.bin" | wc -c >"$dir/refusing"
	# one line of hex a state (records of one length)
	local len
	len=$(($(wc -c <"$dir/states.bin") / $(cat "$dir/count")))
	od -An -v -tx1 -w"$len" "$dir/states.bin" | tr -d ' ' | sort -u >"$dir/states"
}

fail=0
for c in "${configs[@]}"; do
	name=${c%%:*}
	defs=${c#*:}
	dump "$name-model" "$defs -DFORGETFUL=0" || { fail=1; continue; }
	dump "$name-forgetful" "$defs -DFORGETFUL=1" || { fail=1; continue; }
	m=$work/$name-model f=$work/$name-forgetful
	missing=$(comm -23 "$m/states" "$f/states" | wc -l)
	if ((missing != 0)); then
		echo "FAIL $name: $missing of the model's $(cat "$m/count") states are not the abstraction's"
		fail=1
	elif (($(cat "$m/refusing") == 0)); then
		echo "FAIL $name: no state of the model remembers a refusal (the check says nothing)"
		fail=1
	elif (($(cat "$f/count") >= $(cat "$m/count"))); then
		echo "FAIL $name: the abstraction has no fewer states than the model ($(cat "$f/count") against $(cat "$m/count"))"
		fail=1
	else
		echo "ok   $name: the model's $(cat "$m/count") states ($(cat "$m/refusing") remembering a refusal) are among the abstraction's $(cat "$f/count")"
	fi
done
# the mutant: a forgetful peer that never skips must miss states (of
# d3show: with 2 players, d2f, skipping changes no state)
name=${configs[1]%%:*}
defs=${configs[1]#*:}
if dump "$name-noskip" "$defs -DFORGETFUL=1 -DM_NOSKIP"; then
	missing=$(comm -23 "$work/$name-model/states" "$work/$name-noskip/states" | wc -l)
	if ((missing == 0)); then
		echo "FAIL M_NOSKIP: not caught, every state of the model is among its $(cat "$work/$name-noskip/count")"
		fail=1
	else
		echo "ok   M_NOSKIP caught: $missing of the model's $(cat "$work/$name-model/count") states of $name are not among its $(cat "$work/$name-noskip/count")"
	fi
else
	fail=1
fi
exit $fail
