// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "FlakyCauses",
    targets: [
        .target(name: "FlakyCauses"),
        .testTarget(name: "FlakyCausesTests", dependencies: ["FlakyCauses"]),
    ]
)
