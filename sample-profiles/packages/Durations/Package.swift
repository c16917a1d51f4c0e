// swift-tools-version:5.9
// Fixture for test timing: Swift Testing tests that sleep known, different amounts in parallel
// (blocking and async sleeps, a parameterized test), and one serial XCTest test, so that each
// test's duration, the suites' and the run's wall time can be checked against the sleeps.
import PackageDescription

let package = Package(
    name: "Durations",
    targets: [
        .target(name: "Durations"),
        .testTarget(name: "DurationsTests", dependencies: ["Durations"]),
    ]
)
