import Flaky
import XCTest

/// Polluters → victim across classes, two of them: each of LocaleTests and TSVExportTests changes
/// the shared separator and never restores it. FormatterTests sorts first, so it passes by default.
final class FormatterTests: XCTestCase {
    /// Victim with two polluters.
    func testJoinsWithComma() {
        XCTAssertEqual(joinFields(["a", "b"]), "a,b")
    }
}

final class LocaleTests: XCTestCase {
    /// Polluter 1.
    func testSemicolonLocale() {
        Settings.separator = ";"
        XCTAssertEqual(joinFields(["a", "b"]), "a;b")
    }
}

final class TSVExportTests: XCTestCase {
    /// Polluter 2.
    func testTabSeparatedExport() {
        Settings.separator = "\t"
        XCTAssertEqual(joinFields(["a", "b"]), "a\tb")
    }
}
