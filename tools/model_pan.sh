# shellcheck shell=bash disable=SC2034
# model_pan.sh - sourced by tests/model/test_spin.sh and
# tools/model_pieces.sh: build one of spin's verifiers (pan) for
# spec/replication.pml and read what its search reported. Not a command.

# pan_build DIR MODEL DEFINES CFLAGS: spin -a MODEL with DEFINES in DIR,
# then gcc CFLAGS pan.c. Returns 0, or 2 after a line "FAIL NAME: ..."
# (NAME the last part of DIR).
#
# With hash compaction (-DHC4 in CFLAGS) pan keeps 12 bytes of hash a
# state, but with a table of 2^32 slots or fewer (-w32 and below) it
# hashes with a 32-bit function and those 12 bytes hold 32 bits of hash:
# two states in about 2^32 pairs collide and one is never explored. The
# 64-bit Jenkins hash (96 bits kept) is forced here.
pan_build() {
	local dir=$1 model=$2 defs=$3 cflags=$4 name
	name=$(basename "$dir")
	mkdir -p "$dir"
	cp "$model" "$dir/replication.pml"
	# shellcheck disable=SC2086
	(cd "$dir" && spin -a $defs replication.pml >spin.out 2>&1) ||
		{ cat "$dir/spin.out"; echo "FAIL $name: spin -a"; return 2; }
	if [[ $cflags == *-DHC* ]]; then
		sed -i 's|if (ssize <= 32)\t/\* 6.2.0 \*/|if (0) /* 64-bit hash: tools/model_pan.sh */|' "$dir/pan.c"
		grep -q "64-bit hash: tools/model_pan.sh" "$dir/pan.c" ||
			{ echo "FAIL $name: pan.c's hash choice not found (another spin version?)"; return 2; }
	fi
	# shellcheck disable=SC2086
	(cd "$dir" && gcc $cflags -o pan pan.c) || { echo "FAIL $name: gcc pan.c"; return 2; }
}

# pan_read DIR: sets pan_errors (empty when pan did not finish),
# pan_states, pan_trans, pan_depth and pan_mb from DIR/pan.out.
pan_read() {
	local out=$1/pan.out
	pan_errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | tail -1)
	pan_states=$(awk '/states, stored/ { print $1 }' "$out" | tail -1)
	pan_trans=$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$out" | tail -1)
	pan_depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -1)
	pan_mb=$(awk '/total actual memory usage/ { print $1 }' "$out" | tail -1)
}

# pan_cut_short DIR: true when DIR/pan.out says the search did not reach
# every state (its depth, memory or table ran out); prints those lines.
pan_cut_short() {
	grep -m3 "Search not completed\|max search depth too small\|out of memory\|MEMLIM" "$1/pan.out"
}
