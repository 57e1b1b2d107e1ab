# tools/feel.sh - what players feel, measured the same way over any
# transport (sourced by tools/https_bench.sh and tools/git_bench.sh, which
# make the games and set catan, maxi, idle_s, here and the pids array).
#
# feel_live DIR NAME...: each NAME's `catan peer --bot greedy` (--interval
#   0.05 --max-interval $maxi) plays the game in DIR/NAME to its end; prints
#   the time from a move's commit on its peer to its adoption by each other
#   peer (tools/move_latency.py) and how long the game took.
# feel_idle DIR NAME...: each NAME's peer waits $idle_s seconds for a player
#   who never moves; prints the CPU time each used, as a share of one core.

feel_stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }

feel_live() {
	local d=$1 p start end
	shift
	start=$(date +%s.%N)
	for p in "$@"; do
		( nice -n 10 $catan -C "$d/$p" peer --bot greedy --interval 0.05 \
			--max-interval "$maxi" | feel_stamp >"$d/live_$p.log" ) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	pids=()
	end=$(date +%s.%N)
	git -C "$d/$1" log --reverse --format='%H %an' "$1" >"$d/history"
	python3 "$here/move_latency.py" "$d" "$d/history" "$@"
	awk -v a="$start" -v b="$end" 'BEGIN { printf "  game took %.1f s\n", b - a }'
}

# (A peer's own process only: what each poll costs the remote's side, a
# git daemon or git-http-backend and an upload-pack there, is not counted.)
feel_idle() {
	local d=$1 p pid total=0 hz f
	shift
	hz=$(getconf CLK_TCK)
	for p in "$@"; do
		$catan -C "$d/$p" peer --bot greedy --interval 0.05 \
			--max-interval "$maxi" >/dev/null &
		pids+=($!)
	done
	sleep "$idle_s"
	for pid in "${pids[@]}"; do
		read -r -a f </proc/"$pid"/stat
		total=$((total + f[13] + f[14]))
	done
	for pid in "${pids[@]}"; do kill "$pid"; done
	pids=()
	awk -v t="$total" -v hz="$hz" -v s="$idle_s" -v k="$#" -v m="$maxi" 'BEGIN { printf "  CPU of the waiting peers: %.2f %% of a core each on average (--max-interval %s s)\n", 100 * t / hz / s / k, m }'
}
