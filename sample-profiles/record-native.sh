#!/usr/bin/env bash
# Records the extra inputs the native coverage engine needs beyond what record.sh writes
# (see README.md, "Native-engine recordings"). Run record.sh first (it records Concurrency,
# CFamily and Shapes like every package and leaves their test binaries in .build).
#
#   ./record-native.sh            # everything below
#   RUNS=5 ./record-native.sh     # more race/atomic comparison runs (default 3)
#
#  1. Concurrency, racy: runs the non-atomic test binary (the one `swift test
#     --enable-code-coverage` built in packages/Concurrency/.build) directly with Swift Testing until
#     a run leaves `Tally.hit`'s `else` region negative (at most MAX_ATTEMPTS runs):
#     recorded/Concurrency/{race.profdata, coverage-race.json, show-race.txt}.
#  2. Concurrency, atomic: builds the same package with atomic counter updates into a separate
#     scratch folder (packages/Concurrency/.build/atomic) and records one run:
#     recorded/Concurrency/{atomic.profdata, coverage-atomic.json, show-atomic.txt}.
#  3. RUNS more runs of each binary, compared (recorded/Concurrency/race-vs-atomic.txt).
#  4. Two test binaries in one export: recorded/TwoBinaries/ (Shapes, built and run here, +
#     Concurrency; and the non-atomic + atomic Concurrency binaries, which share every function).
# Every command is written to recorded/Concurrency/meta-native.json and recorded/TwoBinaries/meta.json.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
PACKAGES_DIR="$SCRIPT_DIR/packages"
RECORDED_DIR="$SCRIPT_DIR/recorded"
RUNS="${RUNS:-3}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-10}"
# The flag the atomic build passes to every Swift compile (LLVM's InstrProfiling pass option).
ATOMIC_FLAGS=(-Xswiftc -Xllvm -Xswiftc -instrprof-atomic-counter-update-all)

die() { echo "record-native.sh: error: $*" >&2; exit 1; }
log() { echo "record-native.sh: $*" >&2; }

# --- toolchain (as in record.sh: never PATH's llvm tools) -------------------------------
SWIFT_CMD="${SWIFT:-$(command -v swift || true)}"
[[ -n "$SWIFT_CMD" ]] || die "swift not found on PATH (or set SWIFT=...)"
SWIFT_REAL="$(readlink -f "$SWIFT_CMD")"
TOOLCHAIN_BIN="$(dirname "$SWIFT_REAL")"
LLVM_COV="$TOOLCHAIN_BIN/llvm-cov"
LLVM_PROFDATA="$TOOLCHAIN_BIN/llvm-profdata"
[[ -x "$LLVM_COV" && -x "$LLVM_PROFDATA" ]] || die "no llvm-cov/llvm-profdata beside $SWIFT_REAL"
SWIFT_VERSION_LINE="$("$SWIFT_CMD" --version 2>&1 | sed -n 1p)"
LLVM_COV_VERSION_LINE="$("$LLVM_COV" --version 2>&1 | sed -n '/[Vv]ersion/{s/^ *//;p;q;}')"

json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]), end="")' "$1"; }
quote_cmd() { local out="" a; for a in "$@"; do out+="$(printf '%q' "$a") "; done; printf '%s' "${out% }"; }

# Prints "<else-region count of Tally.hit> <covered lines>/<lines> <covered regions>/<regions>
# <hit's function count>" for an export; the else count is 9223372036854775807 when negative.
summarize() {
    python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["data"][0]
hit = next(f for f in d["functions"] if f["name"] == "$s11Concurrency5TallyC3hityySiF")
# The `else { … }` region: the code region that starts on the `} else {` line (Hammer.swift:24).
else_count = next(r[4] for r in hit["regions"] if r[0] == 24 and r[7] == 0)
t = d["totals"]
print(else_count, "%d/%d" % (t["lines"]["covered"], t["lines"]["count"]),
      "%d/%d" % (t["regions"]["covered"], t["regions"]["count"]), hit["count"])
EOF
}

CONC="$PACKAGES_DIR/Concurrency"
OUT="$RECORDED_DIR/Concurrency"
[[ -f "$OUT/meta.json" ]] || die "run ./record.sh Concurrency first"
PLAIN_BIN_DIR="$(cd "$CONC" && "$SWIFT_CMD" build --show-bin-path)"
PLAIN_BIN="$PLAIN_BIN_DIR/ConcurrencyPackageTests.xctest"
[[ -x "$PLAIN_BIN" ]] || die "no $PLAIN_BIN (run ./record.sh Concurrency first)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Runs a Concurrency test binary once (Swift Testing only: the package has no XCTest tests),
# merges its profile into $2 and exports it to $3.
run_once() {
    local binary="$1" profdata="$2" export_json="$3"
    rm -f "$TMP"/run-*.profraw
    LLVM_PROFILE_FILE="$TMP/run-%p.profraw" "$binary" --testing-library swift-testing >"$TMP/run.log" 2>&1 \
        || { tail -5 "$TMP/run.log" >&2; die "test run of $binary failed"; }
    "$LLVM_PROFDATA" merge -sparse "$TMP"/run-*.profraw -o "$profdata"
    "$LLVM_COV" export -instr-profile="$profdata" "$binary" >"$export_json"
}

# 1. racy run with a negative counter.
log "racy (non-atomic) runs of $PLAIN_BIN until the else region of Tally.hit is negative"
attempt=0 race_else=0
while ((attempt < MAX_ATTEMPTS)); do
    attempt=$((attempt + 1))
    run_once "$PLAIN_BIN" "$OUT/race.profdata" "$OUT/coverage-race.json"
    race_else="$(summarize "$OUT/coverage-race.json" | cut -d' ' -f1)"
    log "attempt $attempt: else-region count $race_else"
    [[ "$race_else" == 9223372036854775807 ]] && break
done
[[ "$race_else" == 9223372036854775807 ]] || die "no negative counter in $MAX_ATTEMPTS runs (machine too busy for two threads to overlap?)"
"$LLVM_COV" show "$PLAIN_BIN" -instr-profile="$OUT/race.profdata" -use-color=false >"$OUT/show-race.txt"

# 2. atomic build (separate scratch folder: switching flags in .build would rebuild everything) and run.
ATOMIC_BUILD=("$SWIFT_CMD" build --build-tests --enable-code-coverage "${ATOMIC_FLAGS[@]}" --scratch-path .build/atomic)
log "building: (cd $CONC && $(quote_cmd "${ATOMIC_BUILD[@]}"))"
(cd "$CONC" && "${ATOMIC_BUILD[@]}") >"$TMP/atomic-build.log" 2>&1 || { tail -20 "$TMP/atomic-build.log" >&2; die "atomic build failed"; }
ATOMIC_BIN="$(cd "$CONC" && "$SWIFT_CMD" build --show-bin-path --scratch-path .build/atomic)/ConcurrencyPackageTests.xctest"
run_once "$ATOMIC_BIN" "$OUT/atomic.profdata" "$OUT/coverage-atomic.json"
"$LLVM_COV" show "$ATOMIC_BIN" -instr-profile="$OUT/atomic.profdata" -use-color=false >"$OUT/show-atomic.txt"
atomic_else="$(summarize "$OUT/coverage-atomic.json" | cut -d' ' -f1)"
[[ "$atomic_else" == 0 ]] || die "atomic run: else-region count $atomic_else, expected 0"

# 3. comparison runs.
{
    echo "# RUNS=$RUNS runs of each Concurrency test binary (Swift Testing, parallel), recorded by record-native.sh"
    echo "# columns: build run else-region-count-of-Tally.hit lines-covered/lines regions-covered/regions Tally.hit-function-count load-average"
    echo "# (9223372036854775807 = the expression c0 - c1 went negative, clamped by llvm-cov export)"
    echo "# real number of Tally.hit calls per run: 4 tests x (4 tasks + 16 threads) x 150000 = 12000000"
    for kind in plain atomic; do
        bin="$PLAIN_BIN"; [[ $kind == atomic ]] && bin="$ATOMIC_BIN"
        for i in $(seq 1 "$RUNS"); do
            run_once "$bin" "$TMP/cmp.profdata" "$TMP/cmp.json"
            echo "$kind $i $(summarize "$TMP/cmp.json") $(cut -d' ' -f1 /proc/loadavg)"
        done
    done
} >"$OUT/race-vs-atomic.txt"
cat "$OUT/race-vs-atomic.txt" >&2

cat >"$OUT/meta-native.json" <<EOF
{
  "package": "Concurrency",
  "swiftVersion": $(json_str "$SWIFT_VERSION_LINE"),
  "llvmCovPath": $(json_str "$LLVM_COV"),
  "llvmCovVersion": $(json_str "$LLVM_COV_VERSION_LINE"),
  "recordedAtUTC": $(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)"),
  "raceAttemptsUntilNegative": $attempt,
  "plainBinary": $(json_str "$PLAIN_BIN"),
  "atomicBinary": $(json_str "$ATOMIC_BIN"),
  "commands": {
    "workingDirectory": $(json_str "$CONC"),
    "plainBuild": "swift test --enable-code-coverage (record.sh)",
    "atomicBuild": $(json_str "$(quote_cmd "${ATOMIC_BUILD[@]}")"),
    "run": "LLVM_PROFILE_FILE=<tmp>/run-%p.profraw <binary> --testing-library swift-testing",
    "merge": $(json_str "$(quote_cmd "$LLVM_PROFDATA" merge -sparse '<tmp>/run-*.profraw' -o '<race|atomic>.profdata')"),
    "export": $(json_str "$(quote_cmd "$LLVM_COV" export -instr-profile='<race|atomic>.profdata' '<binary>') > coverage-<race|atomic>.json"),
    "show": $(json_str "$(quote_cmd "$LLVM_COV" show '<binary>' -instr-profile='<race|atomic>.profdata' -use-color=false) > show-<race|atomic>.txt")
  }
}
EOF

# 4. two test binaries.
TWO="$RECORDED_DIR/TwoBinaries"
# Shapes is built and run here (XCTest, then Swift Testing) rather than taken from recorded/Shapes,
# so that this profile and binary belong together whatever state packages/Shapes/.build is in.
SHAPES_BUILD=("$SWIFT_CMD" build --build-tests --enable-code-coverage)
(cd "$PACKAGES_DIR/Shapes" && "${SHAPES_BUILD[@]}") >"$TMP/shapes-build.log" 2>&1 || { tail -20 "$TMP/shapes-build.log" >&2; die "Shapes build failed"; }
SHAPES_BIN="$(cd "$PACKAGES_DIR/Shapes" && "$SWIFT_CMD" build --show-bin-path)/ShapesPackageTests.xctest"
rm -f "$TMP"/shapes-*.profraw
LLVM_PROFILE_FILE="$TMP/shapes-%p.profraw" "$SHAPES_BIN" >/dev/null 2>&1 || die "Shapes XCTest run failed"
LLVM_PROFILE_FILE="$TMP/shapes-%p.profraw" "$SHAPES_BIN" --testing-library swift-testing >/dev/null 2>&1 || die "Shapes Swift Testing run failed"
rm -rf "$TWO"; mkdir -p "$TWO"
"$LLVM_PROFDATA" merge -sparse "$TMP"/shapes-*.profraw -o "$TWO/shapes.profdata"
MERGE_A=("$LLVM_PROFDATA" merge -sparse "$TWO/shapes.profdata" "$OUT/default.profdata" -o "$TWO/default.profdata")
EXPORT_A=("$LLVM_COV" export -instr-profile="$TWO/default.profdata" "$SHAPES_BIN" -object "$PLAIN_BIN")
SHOW_A=("$LLVM_COV" show -instr-profile="$TWO/default.profdata" "$SHAPES_BIN" -object "$PLAIN_BIN" -use-color=false)
MERGE_B=("$LLVM_PROFDATA" merge -sparse "$OUT/race.profdata" "$OUT/atomic.profdata" -o "$TWO/same-sources.profdata")
EXPORT_B=("$LLVM_COV" export -instr-profile="$TWO/same-sources.profdata" "$PLAIN_BIN" -object "$ATOMIC_BIN")
EXPORT_B_REV=("$LLVM_COV" export -instr-profile="$TWO/same-sources.profdata" "$ATOMIC_BIN" -object "$PLAIN_BIN")
"${MERGE_A[@]}"
"${EXPORT_A[@]}" >"$TWO/coverage.json"
"${SHOW_A[@]}" >"$TWO/show.txt"
"${MERGE_B[@]}"
"${EXPORT_B[@]}" >"$TWO/coverage-same-sources.json"
"${EXPORT_B_REV[@]}" >"$TWO/coverage-same-sources-reversed.json"
cat >"$TWO/meta.json" <<EOF
{
  "package": "TwoBinaries",
  "binaries": [$(json_str "$SHAPES_BIN"), $(json_str "$PLAIN_BIN"), $(json_str "$ATOMIC_BIN")],
  "swiftVersion": $(json_str "$SWIFT_VERSION_LINE"),
  "llvmCovPath": $(json_str "$LLVM_COV"),
  "llvmCovVersion": $(json_str "$LLVM_COV_VERSION_LINE"),
  "recordedAtUTC": $(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)"),
  "commands": {
    "shapesBuild": $(json_str "(cd packages/Shapes && $(quote_cmd "${SHAPES_BUILD[@]}"))"),
    "shapesRun": "LLVM_PROFILE_FILE=<tmp>/shapes-%p.profraw ShapesPackageTests.xctest; the same with --testing-library swift-testing; llvm-profdata merge -sparse <tmp>/shapes-*.profraw -o shapes.profdata",
    "merge": $(json_str "$(quote_cmd "${MERGE_A[@]}")"),
    "export": $(json_str "$(quote_cmd "${EXPORT_A[@]}") > coverage.json"),
    "show": $(json_str "$(quote_cmd "${SHOW_A[@]}") > show.txt"),
    "mergeSameSources": $(json_str "$(quote_cmd "${MERGE_B[@]}")"),
    "exportSameSources": $(json_str "$(quote_cmd "${EXPORT_B[@]}") > coverage-same-sources.json"),
    "exportSameSourcesReversed": $(json_str "$(quote_cmd "${EXPORT_B_REV[@]}") > coverage-same-sources-reversed.json")
  }
}
EOF
log "recorded: recorded/Concurrency/{race,atomic}.profdata coverage-{race,atomic}.json show-{race,atomic}.txt race-vs-atomic.txt meta-native.json"
log "recorded: recorded/TwoBinaries/: $(cd "$TWO" && ls | tr '\n' ' ')"
