// swift-tools-version:5.9
// Fixture 10 (not recorded): Swift's coverage mapping of `for … where … { return … }` gives the code after
// the loop a negative count, the same in every run (no counter race: XCTest only, serial); a source line
// wider than any window; one failing assertion reached three times on one line.
import PackageDescription

let package = Package(
    name: "LoopFilter",
    targets: [
        .target(name: "LoopFilter"),
        .testTarget(name: "LoopFilterTests", dependencies: ["LoopFilter"]),
    ]
)
