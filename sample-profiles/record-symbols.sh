#!/usr/bin/env bash
# Records recorded/Demangling/symbols.txt: Swift symbols from real test binaries, the corpus on which
# SymbolDemanglerTests checks Testscope's own demangler against the toolchain's libswiftDemangle.
#
# 1,000 symbols (seeded sample of the defined `$s` text symbols, `nm`) from the test binary of each
# mirror package below, built with coverage instrumentation, and 1,000 of the synthetic package's
# (scripts/gen-synthetic-package.py, 100 files) module `Synth`.
#
# Usage: sample-profiles/record-symbols.sh [WORK]   (WORK: where the packages are cloned and built;
#        default a new temporary folder; packages already built there are reused)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${1:-$(mktemp -d)}
OUT="$ROOT/sample-profiles/recorded/Demangling/symbols.txt"
PACKAGES="apple/swift-algorithms:1.2.1 jpsim/Yams:5.0.1 attaswift/BigInt:6.0.1 apple/swift-argument-parser:1.8.2 apple/swift-collections:1.6.0"
FLAGS=(-Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping)
sample() { shuf -n 1000 --random-source=<(yes 42) "$1"; }
mkdir -p "$WORK"
tmp=$(mktemp)
for spec in $PACKAGES; do
    repo=${spec%%:*}; version=${spec##*:}; name=${repo##*/}
    [ -d "$WORK/$name" ] || git clone -q --branch "$version" "/opt/swift-packages/$repo.git" "$WORK/$name"
    binary=$(ls -d "$WORK/$name"/.build/debug/*.xctest 2>/dev/null | head -1 || true)
    if [ -z "$binary" ]; then
        (cd "$WORK/$name" && swift build --build-tests "${FLAGS[@]}" >/dev/null)
        binary=$(ls -d "$WORK/$name"/.build/debug/*.xctest | head -1)
    fi
    nm "$binary" | awk '$2 ~ /[Tt]/ && $3 ~ /^\$s/ {print $3}' | sort -u > "$tmp"
    sample "$tmp"
done > "$tmp.all"
synth="$WORK/synthetic"
if ! ls -d "$synth"/.build/debug/*.xctest >/dev/null 2>&1; then
    python3 "$ROOT/scripts/gen-synthetic-package.py" "$synth" --files 100 >/dev/null
    (cd "$synth" && swift build --build-tests "${FLAGS[@]}" >/dev/null)
fi
nm "$(ls -d "$synth"/.build/debug/*.xctest | head -1)" | awk '$2 ~ /[Tt]/ && $3 ~ /^\$s5Synth/ {print $3}' | sort -u > "$tmp"
sample "$tmp" >> "$tmp.all"
sort -u "$tmp.all" > "$OUT"
rm -f "$tmp" "$tmp.all"
echo "wrote $OUT ($(wc -l < "$OUT") symbols)"
