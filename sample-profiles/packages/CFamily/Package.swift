// swift-tools-version:5.9
// Fixture for the native coverage engine: a C target with clang's coverage mapping, called from
// Swift. SwiftPM's --enable-code-coverage instruments only Swift targets, so the C target asks for
// clang's flags itself (unsafeFlags: fine for a root package, which a fixture always is).
import PackageDescription

let package = Package(
    name: "CFamily",
    targets: [
        .target(
            name: "CClamp",
            cSettings: [.unsafeFlags(["-fprofile-instr-generate", "-fcoverage-mapping"])]
        ),
        // A thin Swift wrapper so the Swift side has regions too.
        .target(name: "CFamily", dependencies: ["CClamp"]),
        .testTarget(name: "CFamilyTests", dependencies: ["CFamily", "CClamp"]),
    ]
)
