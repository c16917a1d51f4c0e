// swift-tools-version:5.9
// Fixture for running a selected subset of the tests and retrying failures (`run` with a test selection,
// failure labels, --retry-untouched): XCTest and Swift Testing tests of two small functions, and in each
// library one test that fails on its first attempt and passes on the next when SELECTION_CHANCE_DIR names
// a folder (a marker file there remembers the first attempt); without the variable every test passes.
import PackageDescription

let package = Package(
    name: "Selection",
    targets: [
        .target(name: "Selection"),
        .testTarget(name: "SelectionTests", dependencies: ["Selection"]),
    ]
)
