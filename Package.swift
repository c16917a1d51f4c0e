// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Testscope",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "testscope", targets: ["testscope"]),
        .library(name: "TestscopeCoverage", targets: ["TestscopeCoverage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Finding toolchain tools, running processes, writing files atomically, terminal styling.
        .target(name: "TestscopeExecution"),
        // The coverage model: llvm-cov export reader, per-line rules, functions, filters, roll-ups.
        .target(name: "TestscopeCoverage", dependencies: ["TestscopeExecution"]),
        // One renderer per output format, all reading the coverage model.
        .target(name: "TestscopeReports", dependencies: ["TestscopeCoverage", "TestscopeExecution"]),
        // The thin command-line frontend.
        .executableTarget(
            name: "testscope",
            dependencies: [
                "TestscopeCoverage", "TestscopeReports", "TestscopeExecution",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "TestscopeCoverageTests", dependencies: ["TestscopeCoverage", "TestscopeExecution"]),
        .testTarget(name: "TestscopeReportsTests", dependencies: ["TestscopeReports", "TestscopeCoverage"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestscopeCoverage", "TestscopeExecution"]),
    ]
)
