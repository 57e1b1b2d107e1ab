#!/usr/bin/env bash
# Durability and I/O faults. (1) act, sync, gc and join fsync each file
# before renaming it into place and its directory after (see order);
# (1b) a power cut after a commit's flush is repaired by the next writer.
# (2) I/O faults (strace --inject): during a commit (catan act), a sync, a gc
# and a join, the N-th write, fsync, fdatasync, syncfs, rename or link (libgit2
# renames by link), and pwrite during a commit, fails with ENOSPC or EIO, for N = 1..k in turn (k the
# number of such calls the command makes; past 8 calls every
# ceil(k/8)-th one, and the last: MAX_PER_SYSCALL; 0 runs (1) only). Each run starts from the same copy of
# the repositories. After each: the command exited 0 or 1 (never a crash
# or a signal), said why on stderr when it failed, the repository is
# git fsck --strict and catan verify clean, every commit acknowledged
# before is still on its branch (the tips before are ancestors of the
# tips after), an act that exited 0 has its commit on the branch, and the
# next command without a fault (a sync) succeeds.
# Usage: test_faults.sh CATAN_BINARY [MAX_PER_SYSCALL]
set -euo pipefail
catan=$1
per=${2:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"
if ! strace -o /dev/null true 2>/dev/null; then
	skip_all 1 "strace cannot trace here (the faults are injected with it)"
fi

b=$tmp/base
$catan new "$b/red" --players red,blue --me red --seed 21 >/dev/null
$catan join "$b/red" "$b/blue" --as blue >/dev/null
$catan -C "$b/red" remote add blue "$b/blue"
$catan -C "$b/blue" remote add red "$b/red"
for i in 1 2 3 4 5; do
	for p in red blue; do
		$catan -C "$b/$p" sync >/dev/null
		$catan -C "$b/$p" step >/dev/null
	done
done
# Who acts next, and what.
for p in red blue; do $catan -C "$b/$p" sync >/dev/null; done
me= action=
for p in red blue; do
	a=$($catan -C "$b/$p" legal --as $p 2>/dev/null | head -1)
	[[ -z $a ]] || { me=$p; action=$a; break; }
done
[[ -n $me ]] || fail "nobody has anything to do"
other=red
[[ $me == red ]] && other=blue

tips() { git -C "$1" for-each-ref --format='%(objectname)' refs/heads/; }

# 1. Durability, as git's core.fsync: in the system calls of act, sync, gc
#    and join, every file renamed or linked into place in the repository
#    was fsync'ed before, the directory it went into is fsync'ed after
#    (before the command ends), and a reflog line is fsync'ed before the
#    next ref is renamed. A branch's rename needs no flush after it when
#    its record in catan.moves was flushed before it (store_recover_moves
#    finishes it after a power cut: 1b checks that). A pack's names are on
#    disk (a syncfs, or an fsync of objects/pack) before any ref moves.
#    A sync's packed-refs needs no flush after its rename: lost, the next
#    sync adopts again (1c checks that).
order() { # trace file [late]: prints what is wrong, nothing when all is well
	# (late: a new repository, reported only at the end: a file, a reflog
	# line or an object may be flushed after its rename, before the
	# command ends: join writes it all, then one syncfs.) A loose object
	# may be linked into place first and flushed later with the others
	# of its action (one syncfs, git's core.fsyncMethod=batch), but before
	# any ref moves.
	awk -v late="${2:-0}" '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	/^[0-9]+ +(fsync|fdatasync)\([0-9]+</ {
		match($0, /<[^>]*>/); p = substr($0, RSTART + 1, RLENGTH - 2)
		for (k in packs) if (dir(k) == p) delete packs[k]
		synced[p] = NR; delete dirty[p]; delete unsynced[p]; dsync[p] = NR; next }
	/^[0-9]+ +pwrite64\([0-9]+<[^>]*\/catan\.moves>/ { jw = NR; next }
	/^[0-9]+ +syncfs\(.* = 0$/ {
		if (jw) jsync = NR
		allsync = NR; for (o in pending) delete pending[o]; for (k in packs) delete packs[k]
		for (p in wrote) synced[p] = NR
		for (l in dirty) delete dirty[l]; for (u in unsynced) delete unsynced[u]; next }
	/^[0-9]+ +write\([0-9]+</ {
		match($0, /<[^>]*>/); p = substr($0, RSTART + 1, RLENGTH - 2)
		wrote[p] = NR; if (p ~ /\/logs\//) dirty[p] = 1; next }
	/^[0-9]+ +(rename|link)\(".*= 0$/ {
		split($0, q, "\""); src = q[2]; dst = q[4]; moved[dst] = NR
		ok = synced[src] > 0 && synced[src] >= wrote[src]
		if (dst ~ /\/objects\/[0-9a-f][0-9a-f]\//) { if (!ok) pending[dst] = 1; next }
		if (dst ~ /\/objects\/pack\/pack-[^\/]*$/) packs[dst] = 1
		if (!ok && !late) print "not fsynced before it was renamed: " dst
		if (!ok && late) unsynced[dst] = 1
		if (dst ~ /\/refs\/heads\// && jw > lastref && jsync > jw) journaled[dst] = NR
		if (dst ~ /\/refs\/|packed-refs$/) {
			lastref = NR
			for (l in dirty) if (!late) print "reflog not fsynced before the ref moved: " l
			for (o in pending) if (!late) print "object not on disk before the ref moved: " o
			for (k in packs) if (!late) print "pack not named on disk before the ref moved: " k
		} }
	END { for (d in moved) if (dsync[dir(d)] < moved[d] && allsync < moved[d] && journaled[d] != moved[d] && d !~ /\/objects\/[0-9a-f][0-9a-f]\// && d !~ /\/packed-refs$/)
			print "directory not fsynced after: " d
	      for (d in unsynced) print "never fsynced: " d
	      for (o in pending) if (late) print "object never flushed: " o
	      for (l in dirty) if (late) print "reflog never flushed: " l }
	' "$1" | sort -u
}
# A copy of the base whose remotes are the copy's repositories (not the
# base's: a sync then brings what the copy's other peer did).
copy_base() {
	rm -rf "$tmp/c"
	cp -a "$b" "$tmp/c"
	local p r
	for p in red blue; do
		for r in $(git -C "$tmp/c/$p" remote); do
			git -C "$tmp/c/$p" remote set-url "$r" \
				"$(git -C "$tmp/c/$p" remote get-url "$r" | sed "s|^$b/|$tmp/c/|")"
		done
	done
}
fresh_base() { copy_base; }
tr() { strace -f -y -o "$tmp/trace" -e trace=fsync,fdatasync,syncfs,write,pwrite64,rename,link "$@" >/dev/null 2>&1; }
fresh_base
tr $catan -C "$tmp/c/$me" act --as $me $action || fail "act"
bad=$(order "$tmp/trace"); [[ -z $bad ]] || fail "act: $bad"
$catan -C "$tmp/c/$me" step >/dev/null
tr $catan -C "$tmp/c/$other" sync || fail "sync"
bad=$(order "$tmp/trace"); [[ -z $bad ]] || fail "sync: $bad"
tr $catan -C "$tmp/c/$other" gc || fail "gc"
bad=$(order "$tmp/trace"); [[ -z $bad ]] || fail "gc: $bad"
tr $catan join "$tmp/c/$me" "$tmp/c/j" --as $other || fail "join"
bad=$(order "$tmp/trace" 1); [[ -z $bad ]] || fail "join: $bad"
echo "ok 1 - act, sync, gc and join fsync each file before its rename, its directory after, reflog lines before the ref"

# 1b. A power cut right after an act reported its commit: the one flush
#     put the objects, the reflog line, the lock file and the record in
#     catan.moves on disk, but not the rename of the lock file over the
#     branch (nor the emptying of catan.lock). The disk is put in that
#     state by hand: the branch back at its old value, the lock file
#     holding the new one. The next writer finishes the move: the commit
#     is on the branch, no lock file is left, fsck and verify are clean.
#     When the commit's objects did not reach the disk (the flush was cut,
#     the act never reported), the branch stays and the lock file goes.
powercut() { # DIR OLD NEW: the rename of the branch $me lost
	printf '%s\n' "$3" >"$1/refs/heads/$me.lock"
	printf '%s\n' "$2" >"$1/refs/heads/$me"
	: >"$1/catan.lock"
}
fresh_base
d=$tmp/c/$me
old=$(git -C "$d" rev-parse $me)
$catan -C "$d" act --as $me $action >/dev/null || fail "1b: act"
new=$(git -C "$d" rev-parse $me)
[[ $new != "$old" ]] || fail "1b: act did not move $me"
grep -q "catan-move .* refs/heads/$me $old $new " "$d/catan.moves" || fail "1b: no record of the move in catan.moves"
powercut "$d" "$old" "$new"
$catan -C "$d" show >/dev/null # a reader changes nothing
[[ $(git -C "$d" rev-parse $me) == "$old" ]] || fail "1b: a reader moved the branch"
$catan -C "$d" sync >/dev/null 2>"$tmp/err" || fail "1b: sync after the power cut: $(cat "$tmp/err")"
[[ $(git -C "$d" rev-parse $me) == "$new" ]] || fail "1b: the acknowledged commit $new is not on $me after the power cut"
[[ ! -e $d/refs/heads/$me.lock ]] || fail "1b: the lock file is left"
git -C "$d" fsck --strict >/dev/null 2>&1 || fail "1b: git fsck: $(git -C "$d" fsck --strict 2>&1 | head -3)"
$catan -C "$d" verify >/dev/null 2>&1 || fail "1b: catan verify: $($catan -C "$d" verify 2>&1 | head -3)"
# The flush cut short: the new commit's object never reached the disk.
fresh_base
$catan -C "$d" act --as $me $action >/dev/null || fail "1b: act"
new=$(git -C "$d" rev-parse $me)
powercut "$d" "$old" "$new"
obj=$d/objects/${new:0:2}/${new:2}
[[ -e $obj ]] || fail "1b: the commit is not a loose object"
rm -f "$obj"
$catan -C "$d" sync >/dev/null 2>"$tmp/err" || fail "1b: sync after a cut flush: $(cat "$tmp/err")"
[[ $(git -C "$d" rev-parse $me) == "$old" ]] || fail "1b: a move whose commit is missing was finished"
[[ ! -e $d/refs/heads/$me.lock ]] || fail "1b: the lock file of the cut move is left"
git -C "$d" fsck --strict >/dev/null 2>&1 || fail "1b: git fsck after a cut flush: $(git -C "$d" fsck --strict 2>&1 | head -3)"
$catan -C "$d" verify >/dev/null 2>&1 || fail "1b: catan verify after a cut flush: $($catan -C "$d" verify 2>&1 | head -3)"
echo "ok 1b - a power cut after the one flush of a commit: the next writer finishes the branch's move; a cut flush is not finished"

# 1c. A power cut during or after a sync that adopted: its pack flushed
#     (one syncfs), renamed, then packed-refs.lock, the branches' reflog
#     lines and the pack's names flushed (one syncfs), then packed-refs
#     renamed, with no flush after. (i) The rename of packed-refs lost:
#     the refs as before the sync, the reflogs one move ahead; the next
#     sync adopts again from the objects on disk. (ii) The second flush
#     cut short: the reflog line reached the disk, the pack's names did
#     not; the next writer (here a sync that reaches no peer) removes the
#     line naming a commit that is not there: git fsck is clean.
synccut() { # DIR: the sync's refs back as they were (saved in DIR.before)
	rm -rf "$1/refs" "$1/packed-refs"
	cp -a "$1.before/refs" "$1/refs"
	[[ ! -e $1.before/packed-refs ]] || cp -a "$1.before/packed-refs" "$1/packed-refs"
}
for cut in rename flush; do
	copy_base
	$catan -C "$tmp/c/$me" act --as $me $action >/dev/null || fail "1c: act"
	d=$tmp/c/$other
	old=$(git -C "$d" rev-parse $me)
	new=$(git -C "$tmp/c/$me" rev-parse $me)
	mkdir "$d.before"
	cp -a "$d/refs" "$d.before/refs"
	[[ ! -e $d/packed-refs ]] || cp -a "$d/packed-refs" "$d.before/packed-refs"
	ls "$d/objects/pack" >"$d.before/packs"
	cp -a "$d/logs/refs/remotes" "$d.before/remote-logs"
	$catan -C "$d" sync >/dev/null || fail "1c: sync"
	[[ $(git -C "$d" rev-parse $me) == "$new" ]] || fail "1c: the sync did not adopt $new"
	synccut "$d"
	if [[ $cut == flush ]]; then
		# (The remote-tracking refs' reflog lines come after the flush.)
		rm -rf "$d/logs/refs/remotes"
		cp -a "$d.before/remote-logs" "$d/logs/refs/remotes"
		for f in $(ls "$d/objects/pack" | grep -vxF -f "$d.before/packs"); do
			mv "$d/objects/pack/$f" "$d/objects/pack/tmp_pack_cut${f##*.}"
		done
		git -C "$d" cat-file -e "$new" 2>/dev/null && fail "1c: $new still there without the sync's pack"
		for r in $(git -C "$d" remote); do git -C "$d" remote set-url "$r" "$tmp/nowhere"; done
		$catan -C "$d" sync >/dev/null 2>&1 || fail "1c: a sync after a cut flush"
		[[ $(git -C "$d" rev-parse $me) == "$old" ]] || fail "1c: $me moved after a cut flush"
		git -C "$d" fsck --strict >/dev/null 2>&1 || fail "1c: git fsck after a cut flush: $(git -C "$d" fsck --strict 2>&1 | head -3)"
		$catan -C "$d" verify >/dev/null 2>&1 || fail "1c: catan verify after a cut flush: $($catan -C "$d" verify 2>&1 | head -3)"
		for r in $(git -C "$d" remote); do
			git -C "$d" remote set-url "$r" \
				"$(git -C "$b/$other" remote get-url "$r" | sed "s|^$b/|$tmp/c/|")"
		done
	fi
	$catan -C "$d" sync >/dev/null 2>"$tmp/err" || fail "1c ($cut): sync after the power cut: $(cat "$tmp/err")"
	[[ $(git -C "$d" rev-parse $me) == "$new" ]] || fail "1c ($cut): $new not adopted again"
	git -C "$d" fsck --strict >/dev/null 2>&1 || fail "1c ($cut): git fsck: $(git -C "$d" fsck --strict 2>&1 | head -3)"
	$catan -C "$d" verify >/dev/null 2>&1 || fail "1c ($cut): catan verify: $($catan -C "$d" verify 2>&1 | head -3)"
	rm -rf "$d.before"
done
echo "ok 1c - a power cut after a sync's flush: the next sync adopts again; a cut flush leaves no reflog line naming a lost commit"
if (( per == 0 )); then echo "3 passed, 0 failed"; exit 0; fi

trials=0 failed_ok=0

# check OP DIR RC: the invariants after one faulted run.
check() {
	local what=$1 d=$2 rc=$3 err=$4
	(( rc == 0 || rc == 1 )) || fail "$what: exit $rc (a crash?): $(head -c 300 "$err")"
	if (( rc )); then
		[[ -s $err ]] || fail "$what: failed without saying why"
		failed_ok=$((failed_ok + 1))
	fi
	git -C "$d" fsck --strict >/dev/null 2>&1 || fail "$what: git fsck: $(git -C "$d" fsck --strict 2>&1 | head -3)"
	$catan -C "$d" verify >/dev/null 2>&1 || fail "$what: catan verify: $($catan -C "$d" verify 2>&1 | head -3)"
	for t in $(cat "$d.tips"); do
		local found=0
		for n in $(tips "$d"); do
			git -C "$d" merge-base --is-ancestor "$t" "$n" 2>/dev/null && { found=1; break; }
		done
		(( found )) || fail "$what: acknowledged commit $t lost"
	done
	$catan -C "$d" sync >/dev/null 2>"$err.next" ||
		fail "$what: the next sync failed: $(head -c 300 "$err.next")"
}

# run OP SYSCALL ERRNO: counts the calls, then fails each chosen one.
run() {
	local op=$1 sc=$2 en=$3
	fresh
	strace -f --seccomp-bpf -o "$tmp/count" -e trace=$sc bash -c "$(cmd)" >/dev/null 2>&1 || true
	local k
	k=$(grep -c " $sc(" "$tmp/count" || true)
	(( k > 0 )) || return 0
	local step=$(( (k + per - 1) / per ))
	local ns
	ns=$(seq 1 "$step" "$k"; echo "$k")
	for n in $(echo "$ns" | sort -un); do
		fresh
		local rc=0
		strace -f --seccomp-bpf -o /dev/null -e trace=$sc -e inject=$sc:error=$en:when=$n \
			bash -c "$(cmd)" >"$tmp/out" 2>"$tmp/err" || rc=$?
		trials=$((trials + 1))
		if [[ $op == join ]]; then
			# A join that failed leaves nothing (or an empty
			# directory) and can be run again; one that succeeded
			# is a repository like any other.
			if (( rc )); then
				[[ ! -e $tmp/c/j || -z $(ls -A "$tmp/c/j") ]] ||
					fail "$op, $sc #$n: a failed join left $(ls -A "$tmp/c/j" | head -3)"
				$catan join "$tmp/c/$me" "$tmp/c/j" --as $other >/dev/null 2>"$tmp/err.next" ||
					fail "$op, $sc #$n: join again: $(head -c 300 "$tmp/err.next")"
			fi
			: >"$tmp/c/j.tips"
			check "$op, $sc #$n of $k failing with $en" "$tmp/c/j" 0 "$tmp/err"
			(( rc == 0 || rc == 1 )) || fail "$op, $sc #$n: exit $rc"
			(( rc == 0 )) || { [[ -s $tmp/err ]] || fail "$op, $sc #$n: failed without saying why"; failed_ok=$((failed_ok + 1)); }
			continue
		fi
		check "$op, $sc #$n of $k failing with $en" "$dir" "$rc" "$tmp/err"
		if [[ $op == act && $rc == 0 ]]; then
			[[ $(git -C "$dir" rev-parse $me) != $(cat "$tmp/before-tip") ]] ||
				fail "$op, $sc #$n: act exited 0 and its commit is not on $me"
		fi
	done
}

# The operations: fresh copies the base and sets dir; cmd prints the
# command (run by bash under strace).
op=
fresh() {
	copy_base
	case $op in
	act) dir=$tmp/c/$me ;;
	sync) # something to fetch: $me plays first
		$catan -C "$tmp/c/$me" step >/dev/null
		dir=$tmp/c/$other ;;
	gc | join) dir=$tmp/c/$me ;;
	esac
	tips "$dir" >"$dir.tips"
	git -C "$dir" rev-parse $me >"$tmp/before-tip"
}
cmd() {
	case $op in
	act) echo "exec '$catan' -C '$dir' act --as $me $action" ;;
	sync) echo "exec '$catan' -C '$dir' sync" ;;
	gc) echo "exec '$catan' -C '$dir' gc" ;;
	join) echo "exec '$catan' join '$tmp/c/$me' '$tmp/c/j' --as $other" ;;
	esac
}

for op in act sync gc join; do
	for f in write:ENOSPC write:EIO fsync:EIO fdatasync:EIO syncfs:EIO rename:ENOSPC link:EIO; do
		run $op "${f%%:*}" "${f##*:}"
	done
done
# The writes of catan.lock's lines and of a branch move's record in
# catan.moves (pwrite).
op=act
run act pwrite64 EIO
echo "ok 2 - $trials runs with an I/O fault ($failed_ok failed cleanly): no crash, fsck and verify clean, nothing acknowledged lost, the next sync succeeds"
echo "4 passed, 0 failed"
