// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Shapes",
    targets: [
        .target(name: "Shapes"),
        .testTarget(name: "ShapesTests", dependencies: ["Shapes"]),
    ]
)
