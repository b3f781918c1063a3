#!/usr/bin/env bash
# Runs the test files whose ranges depend on the exchange's time grid on consecutive simulated days
# (TEST_CLOCK_SHIFT_DAYS=0..N-1, default 30: a whole 30-day grid cell), so a test that passes only on
# some dates of the month is found here rather than on the day CI meets it.
#   bash scripts/any-date.sh [days] [test files...]     (ANY_DATE_FROM=K starts at day K)
# Prints one line a day and ends with "N days passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
days="${1:-30}"
shift || true
files=("$@")
if [ "${#files[@]}" -eq 0 ]; then
  # Every file whose pipeline follows the simulator's running clock (grep keeps this list true).
  mapfile -t files < <(grep -l "simulatorClock: true" -r test --include='*.test.ts' | sort)
fi
passed=0
failed=0
first="${ANY_DATE_FROM:-0}"
for day in $(seq "$first" $((first + days - 1))); do
  if TEST_CLOCK_SHIFT_DAYS="$day" npx vitest run "${files[@]}" >/tmp/any-date-$$.log 2>&1; then
    passed=$((passed + 1))
    echo "day +$day: passed"
  else
    failed=$((failed + 1))
    echo "day +$day: FAILED"
    grep -E "FAIL|AssertionError|Error:" /tmp/any-date-$$.log | head -n 8
  fi
done
rm -f /tmp/any-date-$$.log
echo "$passed days passed, $failed failed"
[ "$failed" -eq 0 ]
