#!/usr/bin/env bash
# Re-makes the Mach-O coverage fixtures in this folder (see README.md) from src/, on Linux, without
# a macOS SDK: C with clang's *-apple-none-macho targets, Swift with a stand-in standard library
# (src/x.swift is module Swift, -parse-stdlib), linked by the toolchain's ld64.lld
# (-no_adhoc_codesign: reproducible bytes). The profiles come from the ELF twins (the same
# source built for Linux and run here): names and hashes agree with the Mach-O files';
# The twins are linked without a build ID, so their raw profiles carry none, as Darwin's never do.
# Universal files: llvm-lipo (Debian's llvm-lipo-14; LIPO=... to choose another).
#
#   TOOLCHAIN=/path/to/swift/usr ./record-macho.sh   (default: the toolchain of the swift on PATH)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
TOOLCHAIN="${TOOLCHAIN:-$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")}"
BIN="$TOOLCHAIN/bin"
LIPO="${LIPO:-$(command -v llvm-lipo || command -v llvm-lipo-14)}"
SRC="$HERE/src"
# Every path in the mappings is /macho/src/...: the same on every machine.
CMAP=(-fcoverage-prefix-map="$SRC=/macho/src" -fdebug-prefix-map="$SRC=/macho/src")
SMAP=(-coverage-prefix-map "$SRC=/macho/src" -debug-prefix-map "$SRC=/macho/src")
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$SRC"
LD=("$BIN/ld64.lld" -platform_version macos 13.0 13.0 -no_adhoc_codesign)

for arch in arm64 x86_64; do
    "$BIN/clang" -target $arch-apple-none-macho -fprofile-instr-generate -fcoverage-mapping "${CMAP[@]}" -c x.c -o "$HERE/c.$arch.o"
    "$BIN/clang" -target $arch-apple-none-macho -c prof_stub.c -o "$WORK/stub.$arch.o"
    "$BIN/swiftc" -parse-stdlib -module-name Swift -target $arch-apple-none-macho -profile-generate \
        -profile-coverage-mapping "${SMAP[@]}" -c x.swift -o "$HERE/swift.$arch.o"
done
# Executables, a dylib and a bundle (what SwiftPM puts in X.xctest/Contents/MacOS/X) of each language.
"${LD[@]}" -arch arm64 -e _main "$HERE/c.arm64.o" "$WORK/stub.arm64.o" -o "$HERE/c.arm64.exe"
"${LD[@]}" -arch x86_64 -e _main "$HERE/c.x86_64.o" "$WORK/stub.x86_64.o" -o "$HERE/c.x86_64.exe"
"${LD[@]}" -arch x86_64 -dylib -undefined dynamic_lookup "$HERE/c.x86_64.o" -o "$HERE/libc.x86_64.dylib"
"${LD[@]}" -arch arm64 -bundle -undefined dynamic_lookup "$HERE/c.arm64.o" -o "$HERE/c.arm64.bundle"
"${LD[@]}" -arch arm64 -e _main -undefined dynamic_lookup "$HERE/swift.arm64.o" "$WORK/stub.arm64.o" -o "$HERE/swift.arm64.exe"
"${LD[@]}" -arch x86_64 -dylib -undefined dynamic_lookup "$HERE/swift.x86_64.o" -o "$HERE/libswift.x86_64.dylib"
# (The tests put it into a macOS-shaped build folder of their own: no build folder is committed.)
"${LD[@]}" -arch arm64 -bundle -undefined dynamic_lookup "$HERE/swift.arm64.o" -o "$HERE/swift.arm64.bundle"
# One universal file (lipo sorts and aligns the slices: 2^14 for arm64, 2^12 for x86_64).
"$LIPO" -create "$HERE/c.arm64.exe" "$HERE/c.x86_64.exe" -output "$HERE/c.universal.exe"

# The ELF twins, run here for the profiles (raw and indexed).
"$BIN/clang" -fprofile-instr-generate -fcoverage-mapping "${CMAP[@]}" -Wl,--build-id=none x.c -o "$HERE/c.elf"
LLVM_PROFILE_FILE="$HERE/c.profraw" "$HERE/c.elf" || true
"$BIN/swiftc" -parse-stdlib -module-name Swift -profile-generate -profile-coverage-mapping "${SMAP[@]}" -Xlinker --build-id=none x.swift -o "$HERE/swift.elf"
LLVM_PROFILE_FILE="$HERE/swift.profraw" "$HERE/swift.elf"
for lang in c swift; do "$BIN/llvm-profdata" merge -o "$HERE/$lang.profdata" "$HERE/$lang.profraw"; done
# A profile of another build of the same source (classify has one more `if`: one more counter, the
# same name, hash 0), from its ELF twin, for the stale-profile tests. Built here as x.swift, so its
# names carry the same file prefix (x.swift:) as the fixtures'.
mkdir "$WORK/stale"
sed 's/^    var k = n$/    if equal(n, one) { return zero }\n    var k = n/' x.swift > "$WORK/stale/x.swift"
(cd "$WORK/stale" && "$BIN/swiftc" -parse-stdlib -module-name Swift -profile-generate -profile-coverage-mapping -Xlinker --build-id=none x.swift -o swift.stale.elf)
LLVM_PROFILE_FILE="$HERE/swift.stale.profraw" "$WORK/stale/swift.stale.elf"
# A hand-written profile whose counters drive classify's expressions negative.
"$BIN/llvm-profdata" merge -o "$HERE/c.negative.profdata" "$SRC/c.negative.proftext"

# llvm-cov's own view of each Mach-O file (-arch per slice of the universal one), for the differential tests.
cd "$HERE"
mkdir -p expected
for f in c.arm64.o c.x86_64.o c.arm64.exe c.x86_64.exe libc.x86_64.dylib c.arm64.bundle c.elf; do
    "$BIN/llvm-cov" export -format=lcov -instr-profile c.profdata "$f" > "expected/$f.lcov"
done
for arch in arm64 x86_64; do
    "$BIN/llvm-cov" export -format=lcov -arch $arch -instr-profile c.profdata c.universal.exe > "expected/c.universal.exe.$arch.lcov"
done
for f in swift.arm64.o swift.x86_64.o swift.arm64.exe libswift.x86_64.dylib swift.elf swift.arm64.bundle; do
    "$BIN/llvm-cov" export -format=lcov -instr-profile swift.profdata "$f" > "expected/$(basename "$f").lcov"
done
for f in c.arm64.exe c.elf; do
    "$BIN/llvm-cov" export -format=lcov -instr-profile c.negative.profdata "$f" > "expected/$f.negative.lcov"
done
"$BIN/llvm-cov" --version | sed -n '/[Vv]ersion/{s/^ *//;p;q;}' > expected/llvm-cov-version.txt
