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

# trio_game CATAN DIR KEYS DICE: red hosts a signed 3-player game in DIR
# (seed 4, dice DICE, keys KEYS/key_<player>), blue and white join from
# it; a full mesh of path remotes (red is the others' origin); red and
# blue make their first placement, each synced to the others.
trio_game() {
	local C=$1 g=$2 k=$3 p q
	mkdir -p "$g"
	$C new "$g/red" --players red,blue,white --me red --seed 4 --dice "$4" \
		--key "$k/key_red" --seat blue="$k/key_blue.pub" \
		--seat white="$k/key_white.pub" >/dev/null 2>&1
	for p in blue white; do $C join "$g/red" "$g/$p" --as $p --key "$k/key_$p" >/dev/null; done
	for p in red blue white; do
		for q in red blue white; do
			[[ $p == "$q" || ($p != red && $q == red) ]] && continue
			$C -C "$g/$p" remote add $q "$g/$q"
		done
	done
	$C -C "$g/red" step >/dev/null
	for p in blue white; do $C -C "$g/$p" sync >/dev/null; done
	$C -C "$g/blue" step >/dev/null
	for p in red white; do $C -C "$g/$p" sync >/dev/null; done
}

# record_only_game CATAN DIR KEYS: the game of trio_game (dice seeded) in
# DIR where white signed three moves X, Y, Z on one commit (DIR/white,
# DIR/white2, DIR/white3 each hold one; Z has the smallest id): red and
# blue were shown X and Y and both record {X, Y}; then blue alone was
# shown Z, which it keeps only through its record
# (refs/catan/equivocation-a/-b), on no branch it serves. Red holds
# neither Z nor its commit.
record_only_game() {
	local C=$1 g=$2 i l
	trio_game $C $g $3 seeded
	for i in 1 2 3; do
		cp -a $g/white $g/w$i
		l=$($C -C $g/w$i legal --as white | sed -n ${i}p)
		$C -C $g/w$i act --as white $l >/dev/null || fail "white's move $i"
	done
	# By child id: the smallest is Z (white3), then X (white), Y (white2).
	set -- $(for i in 1 2 3; do echo "$(git -C $g/w$i rev-parse white) w$i"; done |
		sort | awk '{print $2}')
	rm -rf $g/white
	mv $g/$1 $g/white3
	mv $g/$2 $g/white
	mv $g/$3 $g/white2
	git -C $g/red remote set-url white $g/white2
	$C -C $g/red sync white >/dev/null
	$C -C $g/blue sync white >/dev/null
	$C -C $g/blue step >/dev/null
	$C -C $g/red sync blue >/dev/null 2>&1
	$C -C $g/blue sync origin >/dev/null 2>&1
	$C -C $g/blue remote add white3 $g/white3
	$C -C $g/blue sync white3 >/dev/null 2>&1
	local z=$(git -C $g/white3 rev-parse white)
	git -C $g/blue cat-file -p refs/catan/equivocation | grep -q "commit $z" ||
		fail "blue did not record Z"
	git -C $g/red cat-file -p refs/catan/equivocation | grep -q "commit $z" &&
		fail "red holds Z before the exchange (no test)"
	git -C $g/red cat-file -e $z 2>/dev/null && fail "red holds Z's commit (no test)"
	return 0
}

# records_agree CATAN DIR WHAT: red and blue in DIR keep the same
# equivocation record and the same tips of their branches, catan verify
# passes at both and neither blamed a relayer (a quarantine record).
records_agree() {
	local C=$1 g=$2 b p
	[[ $(git -C $g/red cat-file -p refs/catan/equivocation) == \
	   $(git -C $g/blue cat-file -p refs/catan/equivocation) ]] ||
		fail "$3: the records differ"
	for b in red blue; do
		[[ $(git -C $g/red rev-parse $b) == $(git -C $g/blue rev-parse $b) ]] ||
			fail "$3: the tips of $b differ"
	done
	for p in red blue; do
		$C -C $g/$p verify >/dev/null || fail "$3: verify at $p"
		git -C $g/$p for-each-ref refs/catan/quarantine | grep -q . &&
			fail "$3: $p blamed a relayer"
	done
	return 0
}

# tls_host_env PARTS: for a test that runs a small Python TLS host of its
# own (tls_host.py; tools/https_host.sh sourced): all PARTS skipped without
# openssl and python3; $tmp, removed at exit with the host whose pid is
# $host; HOME and git's configuration the test's own, no authority or
# login from outside; a throwaway authority $tmp/ca.crt and its
# certificate for localhost, $tmp/server.crt and .key.
tls_host_env() {
	if ! command -v openssl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
		skip_all "$1" "needs openssl and python3"
	fi
	tmp=$(mktemp -d)
	host=
	trap tls_host_cleanup EXIT
	export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
	unset GIT_SSL_CAPATH SSL_CERT_FILE SSL_CERT_DIR CATAN_HTTP_USER GIT_ASKPASS
	mkdir -p "$HOME"
	_https_ca "$tmp" ca
	_https_cert "$tmp" server localhost ca
}

tls_host_cleanup() {
	[[ -z $host ]] || kill "$host" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}

# tls_host_wait LOG: waits (up to 20 s) for the host started in the
# background, writing to LOG, to listen; its pid into $host, its port
# into $port.
tls_host_wait() {
	host=$!
	for _ in $(seq 400); do grep -q listening "$1" && break; sleep 0.05; done
	grep -q listening "$1" || fail "the host did not start: $(cat "$1")"
	port=$(sed -n 's/^listening on //p' "$1")
}
