# lib.sh - what several cli tests do alike; sourced by them, after they
# define fail().

# skip_all N REASON: the whole test cannot run here (a server, a tool or
# root is missing): says why and that its N parts were skipped, and exits
# 77, which ctest counts as skipped (SKIP_RETURN_CODE). CI (CI set) has
# everything installed and runs as root, so there it is a failure.
skip_all() {
	echo "skipped: $2"
	echo "0 passed, 0 failed, $1 skipped"
	[[ -z ${CI:-} ]] || { echo "FAIL: CI runs every test" >&2; exit 1; }
	exit 77
}

# skip_part NAME REASON: one part of a test cannot run here; the test goes
# on without it. A failure under CI, as above.
skip_part() {
	echo "# skipped $1: $2"
	[[ -z ${CI:-} ]] || fail "CI runs every test, $1 included ($2)"
}

# git_verify_all REPO REV...: stock git checks the signature of every
# commit reachable from the REVs (git verify-commit, with the game's
# signers file as gpg.ssh.allowedSignersFile); prints how many it checked.
git_verify_all() {
	local repo=$1 allowed n=0 c
	shift
	allowed=$(mktemp)
	git -C "$repo" show "$1:game/signers" >"$allowed" || fail "no game/signers in $repo"
	for c in $(git -C "$repo" rev-list "$@" | sort -u); do
		git -C "$repo" -c gpg.ssh.allowedSignersFile="$allowed" \
			verify-commit "$c" 2>/dev/null || {
			rm -f "$allowed"
			fail "git verify-commit $c"
		}
		n=$((n + 1))
	done
	rm -f "$allowed"
	echo "$n"
}

# verify_everywhere CATAN DIR PEER...: catan verify and git fsck --strict
# pass in DIR/PEER for every PEER.
verify_everywhere() {
	local catan=$1 dir=$2 p
	shift 2
	for p in "$@"; do
		"$catan" -C "$dir/$p" verify >/dev/null || fail "catan verify at $p"
		git -C "$dir/$p" fsck --strict >/dev/null 2>&1 || fail "git fsck at $p"
	done
}
