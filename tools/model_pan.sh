# shellcheck shell=bash disable=SC2034
# model_pan.sh - sourced by tests/model/test_spin.sh,
# tests/model/test_forgetful.sh and tools/model_pieces.sh: build one of
# spin's verifiers (pan) for
# spec/replication.pml and read what its search reported. Not a command.

# pan_build DIR MODEL DEFINES CFLAGS: pan_generate, then pan_compile.
# Each returns 0, or 2 after a line "FAIL NAME: ..." (NAME the last part
# of DIR).
pan_build() {
	pan_generate "$1" "$2" "$3" && pan_compile "$1" "$4"
}

# pan_generate DIR MODEL DEFINES: spin -a MODEL with DEFINES in DIR (a
# caller may patch DIR/pan.c before it compiles it).
pan_generate() {
	local dir=$1 model=$2 defs=$3
	mkdir -p "$dir"
	cp "$model" "$dir/replication.pml"
	# shellcheck disable=SC2086
	(cd "$dir" && spin -a $defs replication.pml >spin.out 2>&1) ||
		{ cat "$dir/spin.out"; echo "FAIL $(basename "$dir"): spin -a"; return 2; }
}

# pan_compile DIR CFLAGS: gcc CFLAGS DIR/pan.c into DIR/pan.
#
# With hash compaction (-DHC4 in CFLAGS) pan keeps 12 bytes of hash a
# state, but with a table of 2^32 slots or fewer (-w32 and below) it
# hashes with a 32-bit function and those 12 bytes hold 32 bits of hash:
# two states in about 2^32 pairs collide and one is never explored. The
# 64-bit Jenkins hash (96 bits kept) is forced here.
pan_compile() {
	local dir=$1 cflags=$2 name
	name=$(basename "$dir")
	if [[ $cflags == *-DHC* ]]; then
		sed -i 's|if (ssize <= 32)\t/\* 6.2.0 \*/|if (0) /* 64-bit hash: tools/model_pan.sh */|' "$dir/pan.c"
		grep -q "64-bit hash: tools/model_pan.sh" "$dir/pan.c" ||
			{ echo "FAIL $name: pan.c's hash choice not found (another spin version?)"; return 2; }
	fi
	# shellcheck disable=SC2086
	(cd "$dir" && gcc $cflags -o pan pan.c) || { echo "FAIL $name: gcc pan.c"; return 2; }
}

# pan_table_bits MB: pan's -w for a table fixed at a quarter of MB
# megabytes, in slots of 8 bytes (so that chains stay short), at least 20.
pan_table_bits() {
	local bits=20
	while (((8 << (bits + 1)) <= $1 * 1048576 / 4)); do bits=$((bits + 1)); done
	echo "$bits"
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
