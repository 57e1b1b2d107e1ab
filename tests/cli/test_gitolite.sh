#!/usr/bin/env bash
# Per-player write rights on a Git server: gitolite (Debian's gitolite3)
# behind a real OpenSSH server on 127.0.0.1, configured with the fragment
# `catan host-hook gitolite` prints from the game's seats:
#   1. the host pushes the game there over ssh://, a player joins from it,
#      and each pushes its own branch with catan sync: a move travels;
#   2. a push to another player's branch (stock git over ssh) is refused
#      by gitolite, and the repository there does not change.
# gitolite runs as root here with a home of its own in a temporary folder
# (its authorized_keys lines get HOME set, as a dedicated user would have
# it). Needs root, openssh-server and gitolite3; says "skipped" otherwise.
#   test_gitolite.sh CATAN_BINARY
set -euo pipefail
catan=$(readlink -f "$1")
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"

if [[ $(id -u) != 0 || ! -x /usr/sbin/sshd ]] || ! command -v gitolite >/dev/null ||
	! command -v ssh-keygen >/dev/null; then
	skip_all 2 "gitolite over ssh on loopback needs root, openssh-server and gitolite3"
fi

tmp=$(mktemp -d)
sshd_pid=
cleanup() {
	[[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

gl=$tmp/gitolite
mkdir -p "$gl" "$tmp/home" /run/sshd
for k in host_key admin red blue; do ssh-keygen -q -t ed25519 -N '' -f "$tmp/$k"; done
export GIT_CONFIG_NOSYSTEM=1
HOME=$gl gitolite setup -pk "$tmp/admin.pub" >/dev/null 2>&1 || fail "gitolite setup"
export HOME=$tmp/home
unset SSH_AUTH_SOCK

# The game, and gitolite's configuration from its seats.
d=$tmp/g
mkdir -p "$d"
$catan new "$d/red" --players red,blue --me red --seed 11 >/dev/null 2>&1
$catan host-hook gitolite "$d/red" --repo game >"$tmp/fragment" || fail "host-hook gitolite"
grep -q 'RW  refs/heads/red\$ *= red' "$tmp/fragment" || fail "fragment: $(cat "$tmp/fragment")"
if $catan host-hook gitolite "$d/red" --user nobody=x >"$tmp/out" 2>&1; then
	fail "a --user for no player was taken"
fi
grep -q "no such player" "$tmp/out" || fail "--user nobody: $(cat "$tmp/out")"
cat "$tmp/fragment" >>"$gl/.gitolite/conf/gitolite.conf"
cp "$tmp/red.pub" "$tmp/blue.pub" "$gl/.gitolite/keydir/"
HOME=$gl gitolite setup >"$tmp/out" 2>&1 || fail "gitolite compile: $(cat "$tmp/out")"
[[ -d $gl/repositories/game.git ]] || fail "gitolite made no repository game"
# gitolite-shell runs as root here: give it gitolite's home.
sed -i "s|command=\"\([^ \"]*gitolite-shell\)|command=\"env HOME=$gl \1|" \
	"$gl/.ssh/authorized_keys"
grep -q "env HOME=$gl .*gitolite-shell blue" "$gl/.ssh/authorized_keys" ||
	fail "authorized_keys: $(cat "$gl/.ssh/authorized_keys")"

start_sshd() {
	local port
	for _ in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 20000))
		cat >"$tmp/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
AuthorizedKeysFile $gl/.ssh/authorized_keys
PidFile $tmp/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
EOF
		/usr/sbin/sshd -D -e -f "$tmp/sshd_config" >/dev/null 2>>"$tmp/sshd.log" &
		sshd_pid=$!
		for _ in $(seq 1 50); do
			if ssh-keyscan -p "$port" 127.0.0.1 >/dev/null 2>&1; then
				echo "$port"
				return 0
			fi
			kill -0 "$sshd_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$sshd_pid" 2>/dev/null || true
		wait "$sshd_pid" 2>/dev/null || true
	done
	cat "$tmp/sshd.log" >&2
	return 1
}
port=$(start_sshd) || fail "sshd did not start"
sshd_pid=$(cat "$tmp/sshd.pid")
ssh-keyscan -p "$port" 127.0.0.1 2>/dev/null >"$tmp/known_hosts"
export CATAN_SSH_KNOWN_HOSTS=$tmp/known_hosts
url=ssh://root@127.0.0.1:$port/game

# 1. red puts the game there; blue joins; a move each way.
$catan -C "$d/red" remote add hub "$url" --push >/dev/null
CATAN_SSH_KEY=$tmp/red $catan -C "$d/red" sync >"$tmp/out" 2>&1 || fail "red's push: $(cat "$tmp/out")"
grep -q "pushed red to hub" "$tmp/out" || fail "red's push: $(cat "$tmp/out")"
export CATAN_SSH_KEY=$tmp/blue
$catan join "$url" "$d/blue" --as blue >"$tmp/out" 2>&1 || fail "blue's join: $(cat "$tmp/out")"
$catan -C "$d/blue" remote push origin >/dev/null
$catan -C "$d/red" step >/dev/null
CATAN_SSH_KEY=$tmp/red $catan -C "$d/red" sync >/dev/null 2>&1
$catan -C "$d/blue" sync | grep -q "adopted red from origin" || fail "blue did not get red's move"
$catan -C "$d/blue" step >/dev/null
$catan -C "$d/blue" sync >"$tmp/out" 2>&1
grep -q "pushed blue to origin" "$tmp/out" || fail "blue's push: $(cat "$tmp/out")"
[[ $(git -C "$gl/repositories/game.git" rev-parse blue) == $(git -C "$d/blue" rev-parse blue) ]] ||
	fail "the server does not hold blue's move"
ok "gitolite over ssh: the game pushed there, joined from it, each player's own branch pushed by catan sync"

# 2. blue pushes its history onto red's branch with stock git.
before=$(git -C "$gl/repositories/game.git" for-each-ref)
export GIT_SSH_COMMAND="ssh -i $tmp/blue -o IdentitiesOnly=yes -o UserKnownHostsFile=$tmp/known_hosts -o StrictHostKeyChecking=yes"
if out=$(git -C "$d/blue" push "$url" blue:refs/heads/red 2>&1); then
	fail "blue pushed to red's branch: $out"
fi
grep -q "W refs/heads/red game blue DENIED" <<<"$out" || fail "no reason from gitolite: $out"
[[ $(git -C "$gl/repositories/game.git" for-each-ref) == "$before" ]] || fail "the refused push changed the server"
ok "gitolite refuses blue's push to red's branch, the reason shown by git push; the server unchanged"

echo "$n passed, 0 failed"
