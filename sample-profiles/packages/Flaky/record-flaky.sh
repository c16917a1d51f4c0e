#!/usr/bin/env bash
# Re-records sample-profiles/recorded/Flaky from this fixture:
#   test-list.txt      `swift test list` (the ids flaky.json must use)
#   entry-point.swift  the main.swift `testscope flaky` generates and builds the tests with
#   swift-testing-list.jsonl
#                      the test records `--list-tests --event-stream-output-path` writes (Swift Testing's serial order)
#   flaky.json, flaky-junit.xml, flaky.txt
#                      `testscope flaky --seed 7 --runs 12` (the NOD test makes its counts vary between recordings)
# Usage: sample-profiles/packages/Flaky/record-flaky.sh   (TESTSCOPE=path overrides the testscope binary)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ROOT=$(cd "$HERE/../../.." && pwd -P)
OUT="$ROOT/sample-profiles/recorded/Flaky"
TESTSCOPE=${TESTSCOPE:-}
if [[ -z $TESTSCOPE ]]; then
    (cd "$ROOT" && swift build --product testscope >&2)
    TESTSCOPE="$ROOT/.build/debug/testscope"
fi
mkdir -p "$OUT"
swift build --build-tests --package-path "$HERE" >&2
swift test list --skip-build --package-path "$HERE" 2>/dev/null | grep -v '^\[' | grep -v ' ' > "$OUT/test-list.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Exit status 1 is expected: the fixture has a test that fails in every run.
status=0
(cd "$ROOT" && "$TESTSCOPE" flaky --package-path sample-profiles/packages/Flaky --seed 7 --runs 12 --output "$work" --no-color) > "$work/stdout.txt" || status=$?
[[ $status == 1 ]] || { cat "$work/stdout.txt" >&2; echo "record-flaky.sh: testscope flaky exited with $status, expected 1" >&2; exit 1; }
cp "$HERE/.build/testscope/testscope-entry-point/main.swift" "$OUT/entry-point.swift"
BIN=$(ls -d "$HERE"/.build/testscope/*/debug/FlakyPackageTests.xctest)
"$BIN" --testing-library swift-testing --list-tests --event-stream-output-path "$work/list.jsonl" >/dev/null
cp "$work/list.jsonl" "$OUT/swift-testing-list.jsonl"
for f in flaky.json flaky-junit.xml flaky.txt; do cp "$work/$f" "$OUT/$f"; done
echo "record-flaky.sh: recorded $(wc -l < "$OUT/test-list.txt") tests into $OUT" >&2
