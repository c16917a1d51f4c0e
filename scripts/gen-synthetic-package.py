#!/usr/bin/env python3
"""Generate a synthetic Swift package for benchmarking coverage tooling.

The package has one library target `Synth` (N source files spread over
subdirectories of 50 files each) and one XCTest target `SynthTests` whose
tests call only part of the code, so that line coverage lands around 55-65 %:
some functions are never called, and the called ones take only some of their
branches (if/else chains, one-line `guard ... else { return ... }`, closures,
a generic function, a switch over an enum with payloads, a throwing guard, a
struct with a computed property).

The output is deterministic: the same arguments always give byte-identical
files (a seeded PRNG is used, the seed is an option).

Size guide (Swift 6.3, LLVM 21 llvm-cov, 64 functions per file, the default):
the `llvm-cov export` JSON of the test binary is about 51 KB per source file
(with package paths like /work/main/bench-work/pkg-400), so --files 100, 200
and 400 give 5.1, 10.2 and 20.3 MB; llvm-cov's line coverage is about 56 %.
A clean debug build of 400 files takes about 130 s on 2 cores. See
docs/performance.md.

Usage:
    scripts/gen-synthetic-package.py OUTDIR [--files N] [--functions-per-file M] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import sys

FILES_PER_GROUP = 50
SOURCES_PER_TEST_FILE = 10

# Function "kinds"; a file's functions cycle through them.
KINDS = ["ifelse", "guard", "closure", "generic", "switch", "loop", "throwing", "struct"]


def unit_name(i: int) -> str:
    return f"Unit{i:04d}"


def gen_function(rng: random.Random, i: int, j: int, kind: str) -> tuple[str, dict]:
    """Return (swift source of one static func, info for the test generator)."""
    c1 = rng.randint(2, 9)
    c2 = rng.randint(10, 40)
    c3 = rng.randint(1, 5)
    name = f"f{j:02d}"
    u = unit_name(i)
    if kind == "ifelse":
        src = f"""
    /// If/else chain: tests hit one or two of the arms.
    public static func {name}(_ x: Int) -> Int {{
        var acc = x &* {c1}
        if x > {c2} {{
            acc += {c3}
            acc = acc / 2
        }} else if x < -{c2} {{
            acc -= {c3}
            acc = -acc
        }} else {{
            acc = acc &+ {c1}
        }}
        return acc
    }}
"""
        info = {"call": f"_ = {u}.{name}({rng.choice([0, 1, c2 + 1, c2 + 5])})"}
    elif kind == "guard":
        src = f"""
    /// One-line guards whose `else` usually does not run.
    public static func {name}(_ values: [Int]) -> Int {{
        guard !values.isEmpty else {{ return -1 }}
        guard values.count < {c2} else {{ return {c2} }}
        var total = 0
        for v in values where v % 2 == 0 {{
            total += v &* {c3}
        }}
        return total
    }}
"""
        arg = rng.choice(["[1, 2, 3, 4]", "[]", "[5, 6]"])
        info = {"call": f"_ = {u}.{name}({arg})"}
    elif kind == "closure":
        src = f"""
    /// Closures: filter and map with a multi-line body.
    public static func {name}(_ values: [Int]) -> [String] {{
        let kept = values.filter {{ (v: Int) -> Bool in v % {c1} != 0 }}
        return kept.map {{ (v: Int) -> String in
            if v > {c2} {{
                return "big" + String(v)
            }}
            return "v" + String(v &+ {c3})
        }}
    }}
"""
        arg = rng.choice(["[1, 2, 3]", "[]", "[100, 7]"])
        info = {"call": f"_ = {u}.{name}({arg})"}
    elif kind == "generic":
        src = f"""
    /// Generic function, specialised for Int and String by the tests.
    public static func {name}<T: Comparable>(_ a: T, _ b: T, preferLarger: Bool) -> T {{
        if preferLarger {{
            return a > b ? a : b
        }}
        guard a != b else {{ return a }}
        return a < b ? a : b
    }}
"""
        if rng.random() < 0.5:
            call = f"_ = {u}.{name}({c1}, {c2}, preferLarger: true)"
        else:
            call = f'_ = {u}.{name}("a", "b", preferLarger: false)'
        info = {"call": call}
    elif kind == "switch":
        src = f"""
    /// Switch over an enum with payloads and a `where` clause.
    public static func {name}(_ k: Kind{i:04d}) -> String {{
        switch k {{
        case .alpha:
            return "alpha{c1}"
        case .beta(let n) where n > {c2}:
            return "big beta " + String(n)
        case .beta(let n):
            return "beta " + String(n &* {c3})
        case .gamma(let s):
            let t = s.uppercased()
            return t.isEmpty ? "empty" : t
        case .delta:
            return "delta"
        }}
    }}
"""
        arg = rng.choice([".alpha", f".beta({c2 + 3})", ".beta(1)", '.gamma("x")'])
        info = {"call": f"_ = {u}.{name}({arg})"}
    elif kind == "loop":
        src = f"""
    /// Loop with an inner branch and an early exit.
    public static func {name}(_ s: String) -> Int {{
        var count = 0
        for ch in s {{
            if ch == "a" {{
                count += {c1}
            }} else if ch == "z" {{
                break
            }} else {{
                count += 1
            }}
        }}
        while count > {c2 * 10} {{
            count -= {c2}
        }}
        return count
    }}
"""
        arg = rng.choice(['"banana"', '"xyz"', '""'])
        info = {"call": f"_ = {u}.{name}({arg})"}
    elif kind == "throwing":
        src = f"""
    /// Throwing guard whose `throw` is rarely taken.
    public static func {name}(_ x: Int) throws -> Int {{
        guard x >= 0 else {{ throw SynthError.negative(x) }}
        guard x < {c2 * 100} else {{ throw SynthError.tooLarge(x) }}
        let doubled = x &* 2
        return doubled &+ {c3}
    }}
"""
        info = {"call": f"_ = try? {u}.{name}({rng.choice([1, 5, -1])})"}
    else:  # struct
        src = f"""
    /// Builds a value type and uses its computed property and method.
    public static func {name}(_ w: Int, _ h: Int) -> Int {{
        let box = Box{i:04d}(width: w, height: h)
        if box.isSquare {{
            return box.area
        }}
        return box.scaled(by: {c1}).area
    }}
"""
        info = {"call": f"_ = {u}.{name}({c1}, {rng.choice([c1, c3])})"}
    return src, info


def gen_source(rng: random.Random, i: int, m: int, call_ratio: float) -> tuple[str, list[str]]:
    u = unit_name(i)
    parts = [
        f"// Generated by scripts/gen-synthetic-package.py: do not edit.\n",
        f"public enum Kind{i:04d}: Equatable {{\n"
        f"    case alpha\n    case beta(Int)\n    case gamma(String)\n    case delta\n}}\n",
        f"""
public struct Box{i:04d}: Equatable {{
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {{
        self.width = width
        self.height = height
    }}

    public var area: Int {{ width &* height }}

    public var isSquare: Bool {{
        width == height
    }}

    public func scaled(by factor: Int) -> Box{i:04d} {{
        guard factor != 1 else {{ return self }}
        return Box{i:04d}(width: width &* factor, height: height &* factor)
    }}

    public func describe() -> String {{
        if isSquare {{
            return "square " + String(width)
        }}
        return "box " + String(width) + "x" + String(height)
    }}
}}
""",
        f"\npublic enum {u} {{",
    ]
    calls: list[str] = []
    first_call = ""
    offset = i % len(KINDS)
    for j in range(m):
        kind = KINDS[(j + offset) % len(KINDS)]
        src, info = gen_function(rng, i, j, kind)
        parts.append(src)
        first_call = first_call or info["call"]
        if rng.random() < call_ratio:
            calls.append(info["call"])
    parts.append("}\n")
    if not calls:  # every file gets at least one call
        calls.append(first_call)
    return "".join(parts), calls


PACKAGE_SWIFT = """// swift-tools-version:5.9
// Generated by scripts/gen-synthetic-package.py: do not edit.
import PackageDescription

let package = Package(
    name: "Synth",
    targets: [
        .target(name: "Synth"),
        .testTarget(name: "SynthTests", dependencies: ["Synth"]),
    ]
)
"""

COMMON_SWIFT = """// Generated by scripts/gen-synthetic-package.py: do not edit.
public enum SynthError: Error, Equatable {
    case negative(Int)
    case tooLarge(Int)
}
"""


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir", help="package directory to create (its Sources/, Tests/ and Package.swift are replaced)")
    p.add_argument("--files", type=int, default=400, help="number of library source files (default 400)")
    p.add_argument("--functions-per-file", type=int, default=64, help="static functions per source file (default 64)")
    p.add_argument("--call-ratio", type=float, default=0.7, help="share of functions the tests call (default 0.7)")
    p.add_argument("--seed", type=int, default=20240601, help="PRNG seed (default 20240601)")
    args = p.parse_args(argv)
    if args.files < 1 or args.functions_per_file < 1:
        p.error("--files and --functions-per-file must be >= 1")

    out = os.path.abspath(args.outdir)
    os.makedirs(out, exist_ok=True)
    src_root = os.path.join(out, "Sources", "Synth")
    test_root = os.path.join(out, "Tests", "SynthTests")
    wanted: set[str] = set()
    changed = 0

    def write(path: str, text: str) -> None:
        # Only touch files whose content changes, so that a package generated
        # again with the same arguments keeps its .build up to date.
        nonlocal changed
        wanted.add(path)
        try:
            with open(path, encoding="utf-8", newline="") as f:
                if f.read() == text:
                    return
        except FileNotFoundError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        changed += 1

    write(os.path.join(out, "Package.swift"), PACKAGE_SWIFT)
    write(os.path.join(src_root, "Common.swift"), COMMON_SWIFT)

    rng = random.Random(args.seed)
    test_methods: list[tuple[int, list[str]]] = []
    for i in range(args.files):
        text, calls = gen_source(rng, i, args.functions_per_file, args.call_ratio)
        group = f"Group{i // FILES_PER_GROUP:02d}"
        write(os.path.join(src_root, group, f"{unit_name(i)}.swift"), text)
        # About half the files get their Box's describe() exercised as well.
        if rng.random() < 0.5:
            calls.append(f'XCTAssertFalse(Box{i:04d}(width: 2, height: 3).describe().isEmpty)')
        test_methods.append((i, calls))

    for start in range(0, args.files, SOURCES_PER_TEST_FILE):
        chunk = test_methods[start:start + SOURCES_PER_TEST_FILE]
        cls = f"SynthTests{start // SOURCES_PER_TEST_FILE:03d}"
        lines = [
            "// Generated by scripts/gen-synthetic-package.py: do not edit.",
            "import XCTest",
            "import Synth",
            "",
            f"final class {cls}: XCTestCase {{",
        ]
        for i, calls in chunk:
            lines.append(f"    func test{unit_name(i)}() throws {{")
            lines.extend(f"        {c}" for c in calls)
            lines.append("    }")
            lines.append("")
        lines.append("}")
        write(os.path.join(test_root, f"{cls}.swift"), "\n".join(lines) + "\n")

    # Remove generated files left over from a run with other arguments.
    for root in (os.path.join(out, "Sources"), os.path.join(out, "Tests")):
        for dirpath, dirnames, filenames in os.walk(root, topdown=False):
            for name in filenames:
                path = os.path.join(dirpath, name)
                if path not in wanted:
                    os.remove(path)
                    changed += 1
            if not os.listdir(dirpath):
                os.rmdir(dirpath)

    total_funcs = args.files * args.functions_per_file
    print(f"generated {out}: {args.files} source files, {total_funcs} functions, "
          f"{(args.files + SOURCES_PER_TEST_FILE - 1) // SOURCES_PER_TEST_FILE} test files, "
          f"{changed} file(s) written or removed",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
