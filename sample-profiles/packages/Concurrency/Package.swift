// swift-tools-version:5.9
// Fixture for the native coverage engine: racy (non-atomic) coverage counters,
// async code, defer, generics, skipped regions, an uncalled and a dead-stripped function.
// Swift 5 language mode on purpose: the hammered code path is deliberately not data-race safe.
import PackageDescription

let package = Package(
    name: "Concurrency",
    targets: [
        .target(name: "Concurrency"),
        // Optimised (-O, after SwiftPM's -Onone) so that an unused private function is removed
        // from the binary while its coverage mapping record stays: the dead-stripped case.
        .target(name: "Stripped", swiftSettings: [.unsafeFlags(["-O"])]),
        .testTarget(name: "ConcurrencyTests", dependencies: ["Concurrency", "Stripped"]),
    ]
)
