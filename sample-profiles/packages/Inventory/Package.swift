// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Inventory",
    targets: [
        .target(name: "InventoryCore"),
        .target(name: "InventoryReport", dependencies: ["InventoryCore"]),
        // XCTest tests (one fails on purpose).
        .testTarget(name: "InventoryCoreTests", dependencies: ["InventoryCore"]),
        // Swift Testing tests (one fails on purpose).
        .testTarget(name: "InventoryReportTests", dependencies: ["InventoryReport", "InventoryCore"]),
    ]
)
