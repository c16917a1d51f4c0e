// swift-tools-version:5.9
import PackageDescription

// The folder is `Runaway`, the package `RunawayProcesses` on purpose: reports name a package after its manifest.
let package = Package(
    name: "RunawayProcesses",
    targets: [
        .target(name: "Runaway"),
        .testTarget(name: "RunawayTests", dependencies: ["Runaway"]),
    ]
)
