import FlakyCauses
import Foundation
import XCTest

// Order-dependent pairs, one per kind of shared state (truth.json names each pair's state). In the default
// order (classes and methods as listed) every test passes.

/// A global variable written through a function, no cleaner: `testB` leaves `retryLimit` at 10.
final class RetryTests: XCTestCase {
    /// Victim.
    func testA_defaultAttempts() { XCTAssertEqual(attempts(), 4) }
    /// Polluter.
    func testB_aggressiveRetries() {
        configureRetries(10)
        XCTAssertEqual(attempts(), 11)
    }
}

/// A static flag, with a cleaner in the same class.
final class FlagTests: XCTestCase {
    /// Victim.
    func testA_menuWithoutLabs() { XCTAssertEqual(menuItems(), ["Home"]) }
    /// Polluter.
    func testB_enableBeta() {
        FeatureFlags.beta = true
        XCTAssertEqual(menuItems().count, 2)
    }
    /// Cleaner.
    func testC_disableBeta() {
        FeatureFlags.beta = false
        XCTAssertEqual(menuItems().count, 1)
    }
}

/// A singleton's stored property, across classes, with a cleaner.
final class AppRegistryTests: XCTestCase {
    /// Victim.
    func testStartsWithoutPlugins() { XCTAssertTrue(PluginRegistry.shared.isEmpty) }
}

final class PluginTests: XCTestCase {
    /// Polluter.
    func testA_registersPlugin() {
        PluginRegistry.shared.register("markdown")
        XCTAssertEqual(PluginRegistry.shared.names.last, "markdown")
    }
    /// Cleaner.
    func testB_resetRegistry() {
        PluginRegistry.shared.reset()
        XCTAssertTrue(PluginRegistry.shared.isEmpty)
    }
}

/// A UserDefaults key, no cleaner.
final class AWelcomeTests: XCTestCase {
    /// Victim.
    func testShowsWelcome() { XCTAssertFalse(Onboarding.isDone, "a new user sees the welcome screen") }
}

final class OnboardingTests: XCTestCase {
    /// Polluter.
    func testCompletesOnboarding() {
        Onboarding.complete()
        XCTAssertTrue(Onboarding.isDone)
    }
}

/// An environment variable, with a cleaner.
final class ARegionTests: XCTestCase {
    /// Victim.
    func testDefaultRegion() { XCTAssertEqual(region(), "us") }
}

final class RegionOverrideTests: XCTestCase {
    /// Polluter.
    func testA_europeanRegion() {
        setenv("FLAKYCAUSES_REGION", "eu", 1)
        XCTAssertEqual(region(), "eu")
    }
    /// Cleaner.
    func testB_unsetRegion() {
        unsetenv("FLAKYCAUSES_REGION")
        XCTAssertEqual(region(), "us")
    }
}

/// State-setter → brittle: the profile needs the token the login sets.
final class LoginTests: XCTestCase {
    /// Setter.
    func testLogin() {
        Auth.token = "t0k3n"
        XCTAssertNotNil(Auth.token)
    }
}

final class ProfileTests: XCTestCase {
    /// Brittle.
    func testProfileName() { XCTAssertEqual(profileName(), "ada") }
}

/// A file, outside the process's memory: the export leaves its lock file behind.
final class ArchiveImportTests: XCTestCase {
    /// Victim.
    func testStartsUnlocked() {
        defer { ExportLock.release() }
        XCTAssertFalse(ExportLock.isHeld, "no export should hold the lock")
    }
}

final class ExportTests: XCTestCase {
    /// Polluter.
    func testExportTakesLock() {
        ExportLock.acquire()
        XCTAssertTrue(ExportLock.isHeld)
    }
}
