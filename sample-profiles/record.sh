#!/usr/bin/env bash
# Re-records the llvm-cov outputs of the fixture packages under packages/.
#
#   ./record.sh              # every package under packages/
#   ./record.sh Inventory    # only the named package(s)
#
# For each package P it runs `swift test --enable-code-coverage` (a failing
# test run is recorded, not fatal), merges the .profraw files written by THAT
# run with the toolchain's llvm-profdata and writes recorded/P/* with the
# toolchain's llvm-cov. See README.md for the list of files.
#
# Needs the llvm-cov / llvm-profdata that ship next to the real `swift`
# executable: Debian's LLVM 14 tools on PATH cannot read Swift profiles.
# Set SWIFT=/path/to/swift to use another toolchain.
set -euo pipefail
# Swift Testing's event stream then carries test case ids (`_testCase`), as under `testscope run`.
export SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
PACKAGES_DIR="$SCRIPT_DIR/packages"
RECORDED_DIR="$SCRIPT_DIR/recorded"

die() { echo "record.sh: error: $*" >&2; exit 1; }
log() { echo "record.sh: $*" >&2; }

# --- toolchain -----------------------------------------------------------
SWIFT_CMD="${SWIFT:-$(command -v swift || true)}"
[[ -n "$SWIFT_CMD" ]] || die "swift not found on PATH (or set SWIFT=...)"
[[ "$SWIFT_CMD" == /* ]] || SWIFT_CMD="$(cd "$(dirname "$SWIFT_CMD")" && pwd -P)/$(basename "$SWIFT_CMD")"
# `swift` is a symlink to swift-driver, which dispatches on argv[0]: run it
# through the symlink, but look for the LLVM tools beside the resolved file.
SWIFT_REAL="$(readlink -f "$SWIFT_CMD")"
TOOLCHAIN_BIN="$(dirname "$SWIFT_REAL")"
LLVM_COV="$TOOLCHAIN_BIN/llvm-cov"
LLVM_PROFDATA="$TOOLCHAIN_BIN/llvm-profdata"
[[ -x "$LLVM_COV" ]] || die "no llvm-cov beside $SWIFT_REAL (Debian's llvm-cov cannot read Swift profiles)"
[[ -x "$LLVM_PROFDATA" ]] || die "no llvm-profdata beside $SWIFT_REAL"

SWIFT_VERSION_LINE="$("$SWIFT_CMD" --version 2>&1 | sed -n 1p)" || die "'$SWIFT_CMD --version' failed"
LLVM_COV_VERSION_LINE="$("$LLVM_COV" --version 2>&1 | sed -n '/[Vv]ersion/{s/^ *//;p;q;}')" || die "'$LLVM_COV --version' failed"

# --- helpers -------------------------------------------------------------
# JSON string literal (quotes included) for an arbitrary bash string.
json_str() {
    local s="$1"
    s="${s//\\/\\\\}"
    s="${s//\"/\\\"}"
    s="${s//$'\n'/\\n}"
    s="${s//$'\r'/\\r}"
    s="${s//$'\t'/\\t}"
    printf '"%s"' "$s"
}

# Shell-quoted rendering of a command (for meta.json and the log).
quote_cmd() {
    local out="" a
    for a in "$@"; do
        out+="$(printf '%q' "$a") "
    done
    printf '%s' "${out% }"
}

# Checks that show.txt consists only of: per-file header lines ("/path:"),
# blank lines, "<line>|<count>|<source>" rows, and instantiation sub-view
# blocks ("  ------------------", "  | <function>:", "  |  <line>|<count>|<source>").
# Prints a one-line summary; returns 1 when some line matches none of those.
check_show_format() {
    awk '
        /^\/.*:$/                                  { files++; next }
        /^$/                                       { next }
        /^ *[0-9]+\|[ 0-9.kMGTPE]*\|/              { rows++; next }
        /^  -+$/                                   { next }
        /^  \| *[0-9]+\|[ 0-9.kMGTPE]*\|/          { subrows++; next }
        /^  \| .*:$/                               { subviews++; next }
        { bad++; if (bad <= 5) printf("  unexpected show.txt line %d: %s\n", NR, $0) > "/dev/stderr" }
        END {
            printf("%d files, %d rows, %d instantiation sub-views (%d sub-view rows), %d unexpected lines",
                   files, rows, subviews, subrows, bad + 0)
            exit (bad > 0)
        }
    ' "$1"
}

# --- which packages --------------------------------------------------------
packages=()
if [[ $# -gt 0 ]]; then
    for name in "$@"; do
        name="${name%/}"; name="${name##*/}"
        [[ -f "$PACKAGES_DIR/$name/Package.swift" ]] || die "no package $PACKAGES_DIR/$name"
        packages+=("$name")
    done
else
    for dir in "$PACKAGES_DIR"/*/; do
        [[ -f "$dir/Package.swift" ]] && packages+=("$(basename "$dir")")
    done
fi
[[ ${#packages[@]} -gt 0 ]] || die "no packages found under $PACKAGES_DIR"

summary_lines=()
failed_packages=()

record_package() {
    local P="$1"
    local pkg="$PACKAGES_DIR/$P"
    local out="$RECORDED_DIR/$P"
    log "=== $P ($pkg)"

    rm -rf "$out"
    mkdir -p "$out"

    # Marker for "written by this run" (old profraws linger in codecov/).
    local marker
    marker="$(mktemp)"
    # Make sure the marker is strictly older than anything written next.
    sleep 1

    local date_utc
    date_utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

    # 1. swift test (a failing run is recorded, not fatal).
    local test_cmd=("$SWIFT_CMD" test --enable-code-coverage --event-stream-output-path "$out/swift-testing-events.jsonl")
    log "running: (cd $pkg && $(quote_cmd "${test_cmd[@]}"))"
    local test_status=0
    (cd "$pkg" && "${test_cmd[@]}") >"$out/swift-test.log" 2>&1 || test_status=$?
    log "swift test exit status: $test_status"

    # 2. locate the build products.
    local bin_cmd=("$SWIFT_CMD" build --show-bin-path)
    local bin
    bin="$(cd "$pkg" && "${bin_cmd[@]}" 2>/dev/null | tail -n 1)"
    [[ -d "$bin" ]] || { log "bin path '$bin' does not exist"; rm -f "$marker"; return 1; }
    local codecov="$bin/codecov"

    local profraws=()
    if [[ -d "$codecov" ]]; then
        mapfile -d '' -t profraws < <(find "$codecov" -maxdepth 1 -type f -name '*.profraw' -newer "$marker" -print0 | sort -z)
    fi
    if [[ ${#profraws[@]} -eq 0 ]]; then
        # Every test process crashed: a crashing process writes no profile. Keep the logs.
        local list_cmd=("$SWIFT_CMD" test list --skip-build --enable-code-coverage)
        local xunit_cmd=("$SWIFT_CMD" test --skip-build --enable-code-coverage --parallel --xunit-output "$out/xunit.xml")
        (cd "$pkg" && "${list_cmd[@]}") >"$out/test-list.txt" 2>/dev/null || true
        (cd "$pkg" && "${xunit_cmd[@]}") >"$out/swift-test-parallel.log" 2>&1 || true
        log "no .profraw written by this run under $codecov (every test process crashed?); recording logs only"
        rm -f "$marker"
        printf '{\n  "package": %s,\n  "packageRoot": %s,\n  "swiftVersion": %s,\n  "swiftTestExitStatus": %d,\n  "recordedAtUTC": %s,\n  "coverage": "none: no test process exited normally, so none wrote a profile",\n  "commands": {"swiftTest": %s, "list": %s, "xunit": %s}\n}\n' \
            "$(json_str "$P")" "$(json_str "$pkg")" "$(json_str "$SWIFT_VERSION_LINE")" "$test_status" "$(json_str "$date_utc")" \
            "$(json_str "$(quote_cmd "${test_cmd[@]}") > swift-test.log 2>&1")" "$(json_str "$(quote_cmd "${list_cmd[@]}") > test-list.txt")" \
            "$(json_str "$(quote_cmd "${xunit_cmd[@]}") > swift-test-parallel.log 2>&1")" >"$out/meta.json"
        summary_lines+=("$P: swift test exit $test_status, no coverage (crashed) -> recorded/$P/: $(cd "$out" && ls | tr '\n' ' ')")
        return 0
    fi
    log "profraws of this run: ${#profraws[@]}"

    local binary="$bin/${P}PackageTests.xctest"
    if [[ ! -e "$binary" ]]; then
        # Package name differs from the directory name: take the only test bundle.
        local candidates=("$bin"/*PackageTests.xctest)
        [[ ${#candidates[@]} -eq 1 && -e "${candidates[0]}" ]] || { log "no test binary ${P}PackageTests.xctest in $bin"; rm -f "$marker"; return 1; }
        binary="${candidates[0]}"
    fi
    # On Darwin the .xctest is a bundle; the executable is inside it.
    if [[ -d "$binary" ]]; then
        binary="$binary/Contents/MacOS/$(basename "$binary" .xctest)"
    fi

    local profdata="$out/default.profdata"

    # 3. merge + llvm-cov outputs.
    local merge_cmd=("$LLVM_PROFDATA" merge -sparse "${profraws[@]}" -o "$profdata")
    local export_cmd=("$LLVM_COV" export -instr-profile="$profdata" "$binary")
    local summary_cmd=("$LLVM_COV" export -summary-only -instr-profile="$profdata" "$binary")
    local lcov_cmd=("$LLVM_COV" export -format=lcov -instr-profile="$profdata" "$binary")
    local show_cmd=("$LLVM_COV" show "$binary" -instr-profile="$profdata" -use-color=false)
    local report_cmd=("$LLVM_COV" report "$binary" -instr-profile="$profdata" -use-color=false)

    # (set -e does not apply inside a function called from `if !`, so check each step.)
    "${merge_cmd[@]}" || { log "llvm-profdata merge failed"; rm -f "$marker"; return 1; }
    local step
    for step in "export_cmd coverage.json" "summary_cmd coverage-summary-only.json" \
                "lcov_cmd lcov.info" "show_cmd show.txt" "report_cmd report.txt"; do
        local -n cmd_ref="${step%% *}"
        "${cmd_ref[@]}" >"$out/${step#* }" || { log "failed: $(quote_cmd "${cmd_ref[@]}")"; rm -f "$marker"; return 1; }
        unset -n cmd_ref
    done

    local show_check show_ok=true
    show_check="$(check_show_format "$out/show.txt")" || show_ok=false
    log "show.txt: $show_check"
    $show_ok || log "WARNING: show.txt has lines outside the documented format"

    # 4. SwiftPM's own export (only written when the test run succeeded).
    local spm_json="$codecov/$P.json" spm_note
    if [[ -f "$spm_json" && "$spm_json" -nt "$marker" ]]; then
        cp "$spm_json" "$out/swiftpm-export.json"
        spm_note="copied from $spm_json"
    elif [[ -f "$spm_json" ]]; then
        spm_note="not copied: $spm_json is older than this run (stale, from an earlier run); SwiftPM only writes it when swift test succeeds"
    else
        spm_note="not written by SwiftPM: it only exports coverage when swift test succeeds (exit status $test_status)"
    fi
    log "swiftpm-export.json: $spm_note"
    rm -f "$marker"

    # 1a. variants (packages/P/record-variants: "NAME VAR=VALUE …" per line): the same tests
    #     with another environment (after the coverage steps: their profiles must not mix in), e.g. a crash; logs and event streams only.
    if [[ -f "$pkg/record-variants" ]]; then
        local vname vrest
        while read -r vname vrest; do
            [[ -z "$vname" || "$vname" == \#* ]] && continue
            log "variant $vname: env $vrest swift test"
            (cd "$pkg" && env $vrest "$SWIFT_CMD" test --enable-code-coverage --event-stream-output-path "$out/$vname-swift-testing-events.jsonl") \
                >"$out/$vname-swift-test.log" 2>&1 || log "variant $vname: swift test exit status $?"
        done <"$pkg/record-variants"
    fi

    # 1b. the build's own output (packages/P/record-build exists): a fresh `swift build --build-tests`
    #     in a scratch folder of its own, so that every diagnostic is printed (the live view's input).
    if [[ -f "$pkg/record-build" ]]; then
        local scratch
        scratch="$(mktemp -d)"
        log "build recording: swift build --build-tests --scratch-path $scratch"
        (cd "$pkg" && "$SWIFT_CMD" build --build-tests --scratch-path "$scratch") >"$out/build.log" 2>&1 || log "build recording: exit status $?"
        rm -rf "$scratch"
    fi

    # 1c. hangs (packages/P/record-timeouts: "NAME SECONDS VAR=VALUE …" per line): a hang never ends
    #     under swift test, so it is recorded through `testscope run --test-timeout SECONDS`, which
    #     kills the hung test: its swift-test.log and tests.json are kept.
    if [[ -f "$pkg/record-timeouts" ]]; then
        local tname tsecs trest
        local repo
        repo="$(cd "$SCRIPT_DIR/.." && pwd -P)"
        "$SWIFT_CMD" build --package-path "$repo" --product testscope >/dev/null 2>&1 || log "could not build testscope for the timeout recordings"
        local testscope
        testscope="$("$SWIFT_CMD" build --package-path "$repo" --show-bin-path)/testscope"
        while read -r tname tsecs trest; do
            [[ -z "$tname" || "$tname" == \#* ]] && continue
            local tout
            tout="$(mktemp -d)"
            log "timeout recording $tname: env $trest testscope run --test-timeout $tsecs"
            (env $trest "$testscope" run --package-path "$pkg" --output "$tout" --test-timeout "$tsecs" --format json --quiet) \
                >/dev/null 2>&1 || true
            cp "$tout/swift-test.log" "$out/$tname-testscope-run.log" 2>/dev/null || log "timeout recording $tname: no log"
            cp "$tout/tests.json" "$out/$tname-tests.json" 2>/dev/null || log "timeout recording $tname: no tests.json"
            rm -rf "$tout"
        done <"$pkg/record-timeouts"
    fi

    # 1b. test results inputs: the test list and SwiftPM's xUnit files (a --parallel run).
    local list_cmd=("$SWIFT_CMD" test list --skip-build --enable-code-coverage)
    (cd "$pkg" && "${list_cmd[@]}") >"$out/test-list.txt" 2>/dev/null || log "swift test list failed"
    local xunit_cmd=("$SWIFT_CMD" test --skip-build --enable-code-coverage --parallel --xunit-output "$out/xunit.xml")
    local xunit_status=0
    (cd "$pkg" && "${xunit_cmd[@]}") >"$out/swift-test-parallel.log" 2>&1 || xunit_status=$?
    log "swift test --parallel --xunit-output exit status: $xunit_status"

    # 5. meta.json
    local profraw_json="" f
    for f in "${profraws[@]}"; do
        profraw_json+="${profraw_json:+, }$(json_str "$f")"
    done
    {
        printf '{\n'
        printf '  "package": %s,\n' "$(json_str "$P")"
        printf '  "packageRoot": %s,\n' "$(json_str "$pkg")"
        printf '  "binPath": %s,\n' "$(json_str "$bin")"
        printf '  "testBinary": %s,\n' "$(json_str "$binary")"
        printf '  "swiftVersion": %s,\n' "$(json_str "$SWIFT_VERSION_LINE")"
        printf '  "swiftPath": %s,\n' "$(json_str "$SWIFT_CMD")"
        printf '  "swiftResolvedPath": %s,\n' "$(json_str "$SWIFT_REAL")"
        printf '  "llvmCovPath": %s,\n' "$(json_str "$LLVM_COV")"
        printf '  "llvmCovVersion": %s,\n' "$(json_str "$LLVM_COV_VERSION_LINE")"
        printf '  "llvmProfdataPath": %s,\n' "$(json_str "$LLVM_PROFDATA")"
        printf '  "swiftTestExitStatus": %d,\n' "$test_status"
        printf '  "recordedAtUTC": %s,\n' "$(json_str "$date_utc")"
        printf '  "profrawFiles": [%s],\n' "$profraw_json"
        printf '  "swiftpmExport": %s,\n' "$(json_str "$spm_note")"
        printf '  "showFormatCheck": %s,\n' "$(json_str "$show_check")"
        printf '  "commands": {\n'
        printf '    "workingDirectory": %s,\n' "$(json_str "$pkg")"
        printf '    "swiftTest": %s,\n' "$(json_str "$(quote_cmd "${test_cmd[@]}") > swift-test.log 2>&1")"
        printf '    "list": %s,\n' "$(json_str "$(quote_cmd "${list_cmd[@]}") > test-list.txt")"
        printf '    "xunit": %s,\n' "$(json_str "$(quote_cmd "${xunit_cmd[@]}") > swift-test-parallel.log 2>&1")"
        printf '    "binPath": %s,\n' "$(json_str "$(quote_cmd "${bin_cmd[@]}")")"
        printf '    "merge": %s,\n' "$(json_str "$(quote_cmd "${merge_cmd[@]}")")"
        printf '    "export": %s,\n' "$(json_str "$(quote_cmd "${export_cmd[@]}") > coverage.json")"
        printf '    "exportSummaryOnly": %s,\n' "$(json_str "$(quote_cmd "${summary_cmd[@]}") > coverage-summary-only.json")"
        printf '    "exportLcov": %s,\n' "$(json_str "$(quote_cmd "${lcov_cmd[@]}") > lcov.info")"
        printf '    "show": %s,\n' "$(json_str "$(quote_cmd "${show_cmd[@]}") > show.txt")"
        printf '    "report": %s\n' "$(json_str "$(quote_cmd "${report_cmd[@]}") > report.txt")"
        printf '  }\n'
        printf '}\n'
    } >"$out/meta.json"

    local files
    files="$(cd "$out" && ls | tr '\n' ' ')"
    summary_lines+=("$P: swift test exit $test_status, ${#profraws[@]} profraw(s) -> recorded/$P/: $files")
}

for P in "${packages[@]}"; do
    if ! record_package "$P"; then
        failed_packages+=("$P")
        summary_lines+=("$P: FAILED to record (see messages above)")
    fi
done

echo
echo "Recorded under $RECORDED_DIR with $LLVM_COV ($LLVM_COV_VERSION_LINE):"
for line in "${summary_lines[@]}"; do
    echo "  $line"
done
if [[ ${#failed_packages[@]} -gt 0 ]]; then
    echo "Failed: ${failed_packages[*]}" >&2
    exit 1
fi
