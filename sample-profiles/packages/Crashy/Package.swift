// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Crashy",
    targets: [
        .target(name: "Crashy"),
        .testTarget(name: "CrashyTests", dependencies: ["Crashy"]),
    ]
)
