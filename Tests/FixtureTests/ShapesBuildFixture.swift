import Foundation
import XCTest

/// A coverage build of a copy of the Shapes fixture, made once per test process (incrementally
/// across runs: the copy lives at a fixed temporary path), with fresh raw profiles from XCTest and
/// Swift Testing in SwiftPM's codecov folder, the toolchain's merged profile and its `llvm-cov export`.
struct ShapesBuild: Sendable {
    var root: String
    var binary: String
    var profraws: [String]
    var merged: String
    var export: String

    static let shared: Result<ShapesBuild, ToolError> = {
        do { return .success(try make()) } catch let error as ToolError { return .failure(error) } catch {
            return .failure(ToolError("\(error)"))
        }
    }()

    /// The build, or a skip when the toolchain is missing, or a failure with the tool's output.
    static func get() throws -> ShapesBuild {
        _ = try Toolchain.tool("swift")
        switch shared {
        case .success(let build): return build
        case .failure(let error): throw error
        }
    }

    private static func make() throws -> ShapesBuild {
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("testscope-profiledata-shapes").path
        let source = Fixtures.repository.appendingPathComponent("sample-profiles/packages/Shapes").path
        try files.createDirectory(atPath: root, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources", "Tests"] {
            try? files.removeItem(atPath: "\(root)/\(item)")
            try files.copyItem(atPath: "\(source)/\(item)", toPath: "\(root)/\(item)")
        }
        let swift = try Toolchain.tool("swift")
        let build = try Toolchain.run(swift, ["build", "--build-tests", "--enable-code-coverage"], directory: root)
        guard build.status == 0 else { throw ToolError("swift build failed: \(build.stdout)\n\(build.stderr)") }
        let binary = "\(root)/.build/debug/ShapesPackageTests.xctest"

        // Where `swift test --enable-code-coverage` writes them, so `report --build-path .build` finds them.
        let profiles = "\(root)/.build/debug/codecov"
        try? files.removeItem(atPath: profiles)
        try files.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        let environment = ["LLVM_PROFILE_FILE": "\(profiles)/x-%p.profraw"]
        try Toolchain.run(binary, [], environment: environment, directory: root)
        try Toolchain.run(binary, ["--testing-library", "swift-testing"], environment: environment, directory: root)
        let profraws = try files.contentsOfDirectory(atPath: profiles).filter { $0.hasSuffix(".profraw") }
            .sorted().map { "\(profiles)/\($0)" }
        guard profraws.count >= 2 else { throw ToolError("expected 2 raw profiles, found \(profraws)") }

        let merged = "\(root)/merged.profdata"
        let merge = try Toolchain.run(try Toolchain.tool("llvm-profdata"), ["merge", "-sparse"] + profraws + ["-o", merged])
        guard merge.status == 0 else { throw ToolError("llvm-profdata merge failed: \(merge.stderr)") }
        let exported = try Toolchain.run(try Toolchain.tool("llvm-cov"), ["export", "-instr-profile", merged, binary])
        guard exported.status == 0 else { throw ToolError("llvm-cov export failed: \(exported.stderr)") }
        let export = "\(root)/export.json"
        try exported.stdout.write(toFile: export, atomically: true, encoding: .utf8)
        return ShapesBuild(root: root, binary: binary, profraws: profraws, merged: merged, export: export)
    }
}
