// swift-tools-version:5.9
// Fixture for tests that look alike (issue 41): parameterized Swift Testing cases whose arguments
// print the same text (a constant `description`, a repeated literal), and an XCTest class of the
// same name in two test targets (Linux XCTest prints `Class.method` without the module).
import PackageDescription

let package = Package(
    name: "Lookalikes",
    targets: [
        .target(name: "Lookalikes"),
        .testTarget(name: "LookalikesTests", dependencies: ["Lookalikes"]),
        .testTarget(name: "LookalikesIntegrationTests", dependencies: ["Lookalikes"]),
    ]
)
