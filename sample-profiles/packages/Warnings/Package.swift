// swift-tools-version:5.9
// Fixture for the live terminal: a build that prints hundreds of warnings, most of them the same
// message (200 calls of one deprecated function, as GRDB's 178 "conformance of 'Row' to 'Sendable'
// is unavailable"), a few others once; tests of which one runs long (the status line names it) and a
// parameterized one (cases and tests counted in one unit).
import PackageDescription

let package = Package(
    name: "Warnings",
    targets: [
        .target(name: "Warnings"),
        .testTarget(name: "WarningsTests", dependencies: ["Warnings"]),
    ]
)
