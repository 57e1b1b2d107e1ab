#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS on a scratch copy of a corpus:
#   run.sh FUZZER SEED_CORPUS WORK_CORPUS SECONDS [libFuzzer options...]
# The seed corpus (checked in) is only read; WORK_CORPUS (in the build
# directory) keeps what the run adds, and is merged into again by later
# runs. A crash input lands in WORK_CORPUS/../artifacts/<target>/; keep it
# as tests/fuzz/regress/<target>/ once the bug is fixed. The last line of
# libFuzzer's output (executions, rate) is printed as "fuzz: ..." and the
# exit status is libFuzzer's; that line is also kept in WORK_CORPUS.summary.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3 seconds=$4
shift 4
target=$(basename "$fuzzer")
target=${target#fuzz_}
artifacts=$(dirname "$work")/../artifacts/$target
mkdir -p "$work" "$artifacts"
log=$(dirname "$work")/$target.log
start=$(date +%s)
set +e
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$artifacts/" "$@" \
	"$work" "$seeds" >"$log" 2>&1
rc=$?
set -e
end=$(date +%s)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
echo "fuzz: $target: ${runs:-?} executions in $((end - start)) s, exit $rc" \
	"(log $log)" | tee "${log%.log}.summary"
if ((rc != 0)); then
	grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -20
fi
exit $rc
