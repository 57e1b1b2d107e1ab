#!/usr/bin/env bash
# Peers over ssh:// end to end, against a real OpenSSH server started here
# on 127.0.0.1 (its own host key, config and authorized keys, all in a
# temporary directory):
#   1. refusals, each with a clear error and nothing created or changed:
#      a host missing from known_hosts, a host whose key does not match,
#      a key the server does not let in;
#   2. join over ssh:// (host key checked against a hashed known_hosts
#      entry), a complete 2-player game between bots synced only over
#      ssh:// both ways, identical tips, verify and fsck on both;
#   3. a shared bare repository reached over ssh://, pushed to and
#      fetched from.
# Needs root (sshd's privilege separation) and openssh-server; says
# "skipped" otherwise.
#   test_ssh.sh CATAN_BINARY
set -euo pipefail
catan=$(readlink -f "$1")
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"

if [[ $(id -u) != 0 || ! -x /usr/sbin/sshd ]] || ! command -v ssh-keygen >/dev/null; then
	skip_all 3 "an ssh server on loopback needs root and openssh-server"
fi

tmp=$(mktemp -d)
sshd_pid=
cleanup() {
	[[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Keys: the server's, ours, and a stranger's (not authorized).
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other_host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/stranger"
cp "$tmp/id_ed25519.pub" "$tmp/authorized_keys"
mkdir -p /run/sshd "$tmp/home"
# Nothing of the user's own ssh set-up takes part.
export HOME=$tmp/home
unset SSH_AUTH_SOCK
export CATAN_SSH_KEY=$tmp/id_ed25519

start_sshd() {
	local port
	for _ in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 20000))
		cat >"$tmp/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
AuthorizedKeysFile $tmp/authorized_keys
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
url=ssh://root@127.0.0.1:$port

d=$tmp/g
mkdir -p "$d"
# (played to 6 points: every ssh:// sync starts a connection, and a
# complete game is what is tested, not a long one)
$catan new "$d/red" --players red,blue --me red --seed 11 --vp 6 >/dev/null

# 1. Refusals.
: >"$tmp/empty_hosts"
if CATAN_SSH_KNOWN_HOSTS=$tmp/empty_hosts $catan join "$url$d/red" "$d/blue" \
	--as blue >"$tmp/out" 2>&1; then
	fail "join from an unknown host worked"
fi
grep -q "127.0.0.1 port $port is not in $tmp/empty_hosts: refusing (add it with: ssh-keyscan -p $port 127.0.0.1" "$tmp/out" ||
	fail "unknown host: $(cat "$tmp/out")"
[[ ! -e $d/blue/HEAD ]] || fail "a refused join left a repository"

echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/other_host_key.pub")" >"$tmp/wrong_hosts"
if CATAN_SSH_KNOWN_HOSTS=$tmp/wrong_hosts $catan join "$url$d/red" "$d/blue" \
	--as blue >"$tmp/out" 2>&1; then
	fail "join from a host with another key worked"
fi
grep -q "the host key of 127.0.0.1 port $port does not match" "$tmp/out" ||
	fail "wrong host key: $(cat "$tmp/out")"

ssh-keyscan -H -p "$port" 127.0.0.1 2>/dev/null >"$tmp/known_hosts"
grep -q '^|1|' "$tmp/known_hosts" || fail "ssh-keyscan -H gave no hashed entry"
export CATAN_SSH_KNOWN_HOSTS=$tmp/known_hosts
if CATAN_SSH_KEY=$tmp/stranger $catan join "$url$d/red" "$d/blue" --as blue \
	>"$tmp/out" 2>&1; then
	fail "join with an unauthorized key worked"
fi
grep -q "ssh: root was not let in (last key tried: $tmp/stranger)" "$tmp/out" ||
	fail "unauthorized key: $(cat "$tmp/out")"
ok "refused with a clear error: host not in known_hosts, host key mismatch, key not let in"

# 2. A game synced over ssh:// only.
$catan join "$url$d/red" "$d/blue" --as blue >/dev/null || fail "join over ssh"
git -C "$d/blue" remote -v | grep -q "^origin	$url$d/red (fetch)" || fail "origin url"
$catan -C "$d/red" remote add blue "$url$d/blue"
over=
for round in $(seq 1 3000); do
	for p in red blue; do
		$catan -C "$d/$p" sync >"$tmp/out" 2>&1 || fail "sync $p: $(cat "$tmp/out")"
		if $catan -C "$d/$p" step | grep -q '^over:'; then
			over=1
			break 2
		fi
	done
done
[[ -n $over ]] || fail "no winner"
for p in red blue red blue; do $catan -C "$d/$p" sync >/dev/null; done
want=$(git -C "$d/red" rev-parse red blue | tr '\n' ' ')
got=$(git -C "$d/blue" rev-parse red blue | tr '\n' ' ')
[[ $want == "$got" ]] || fail "tips differ: $want vs $got"
commits=$(git -C "$d/red" rev-list --count red blue)
for p in red blue; do
	$catan -C "$d/$p" verify >/dev/null || fail "verify at $p"
	git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
done
ok "join and a complete 2-player game ($commits commits) synced over ssh:// only: identical tips, verify and fsck clean"

# 3. A shared bare repository over ssh://: blue pushes, a newcomer fetches.
git init -q --bare "$tmp/shared.git"
$catan -C "$d/blue" remote add shared "$url$tmp/shared.git" --push >/dev/null
$catan -C "$d/blue" sync >"$tmp/out" 2>&1 || fail "sync with push: $(cat "$tmp/out")"
grep -q "pushed blue to shared" "$tmp/out" || fail "no push: $(cat "$tmp/out")"
[[ $(git -C "$tmp/shared.git" rev-parse blue) == $(git -C "$d/blue" rev-parse blue) ]] ||
	fail "the shared repository does not hold blue's tip"
ok "push of the own branch to a bare repository over ssh://"

echo "$n passed, 0 failed"
