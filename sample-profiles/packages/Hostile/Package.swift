// swift-tools-version:5.9
// A fixture whose file name, function names and source text hold HTML markup characters:
// every report must show them as text (see sample-profiles/README.md, "Hostile").
import PackageDescription

let package = Package(
    name: "Hostile",
    targets: [
        .target(name: "Hostile"),
        .testTarget(name: "HostileTests", dependencies: ["Hostile"]),
    ]
)
