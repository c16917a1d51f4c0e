// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Flaky",
    targets: [
        .target(name: "Flaky"),
        .testTarget(name: "FlakyTests", dependencies: ["Flaky"]),
    ]
)
