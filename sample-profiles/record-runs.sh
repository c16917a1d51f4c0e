#!/usr/bin/env bash
# Records what `testscope run` leaves in its output folder for a run that relaunched the test binary,
# so that re-importing a run's own artifacts (`testscope report --event-stream … --test-log …`) can be
# tested against the run's tests.json without running anything:
#
#   ./record-runs.sh          # recorded/Crashy/run-crash/
#
# Crashy with CRASHY_CRASH=1: unwrapsNil() crashes the Swift Testing process. Whether other tests are
# still in flight at that moment depends on thread timing; only then does `run` relaunch the binary
# (a second event stream), so the run is repeated (up to 8 times) until it did.
set -euo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$SCRIPT_DIR/.." && pwd -P)"
SWIFT_CMD="${SWIFT:-swift}"
"$SWIFT_CMD" build --package-path "$REPO" --product testscope >/dev/null
TESTSCOPE="$("$SWIFT_CMD" build --package-path "$REPO" --show-bin-path)/testscope"
OUT="$SCRIPT_DIR/recorded/Crashy/run-crash"
for attempt in 1 2 3 4 5 6 7 8; do
    scratch="$(mktemp -d)"
    (cd "$SCRIPT_DIR/packages/Crashy" && CRASHY_CRASH=1 "$TESTSCOPE" run --output "$scratch" --format json --quiet) >/dev/null 2>&1 || true
    if [[ -f "$scratch/swift-testing-events-2.jsonl" ]]; then
        rm -rf "$OUT"
        mkdir -p "$OUT"
        cp "$scratch"/swift-testing-events*.jsonl "$scratch/swift-test.log" "$scratch/test-list.txt" "$scratch/tests.json" "$OUT/"
        rm -rf "$scratch"
        echo "record-runs.sh: attempt $attempt relaunched the Swift Testing tests; recorded $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
        exit 0
    fi
    rm -rf "$scratch"
    echo "record-runs.sh: attempt $attempt: no relaunch (the crash found no other test in flight); again" >&2
done
echo "record-runs.sh: error: no run relaunched the test binary in 8 attempts" >&2
exit 1
