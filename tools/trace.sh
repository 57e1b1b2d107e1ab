#!/usr/bin/env bash
# trace.sh CATAN REPO - turns a game repository's history into a trace:
# one line per commit (topological order, oldest first), the commit's id,
# author and action, then the state it holds as `catan show --json`
# prints it (the decoder runs catan_state_check on it: every invariant
# of spec/catan.tla, named as in spec/model.md). Fails on the first commit
# whose state breaks an invariant, then runs `catan verify` (every
# action's precondition: the author may act, the action is legal in the
# parent's state). The trace goes to stdout.
set -euo pipefail
catan=${1:?usage: trace.sh CATAN REPO}
repo=${2:?usage: trace.sh CATAN REPO}
n=0
while read -r c; do
	meta=$(git -C "$repo" log -1 --format='%an%x09%s' "$c")
	if ! state=$("$catan" -C "$repo" show --json "$c" 2>&1); then
		echo "trace: commit $c ($meta): $state" >&2
		exit 1
	fi
	printf '{"author":"%s","action":"%s","state":%s}\n' "${meta%%$'\t'*}" \
		"${meta#*$'\t'}" "$state"
	n=$((n + 1))
done < <(git -C "$repo" rev-list --all --topo-order --reverse)
"$catan" -C "$repo" verify >/dev/null
echo "trace: $repo: $n commits, every state passes catan_state_check, verify accepts the history" >&2
