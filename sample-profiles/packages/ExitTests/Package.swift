// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "ExitTests",
    targets: [
        .target(name: "Exits"),
        .testTarget(name: "ExitsTests", dependencies: ["Exits"]),
    ]
)
