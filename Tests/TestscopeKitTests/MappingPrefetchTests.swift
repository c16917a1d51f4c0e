@testable import TestscopeKit
import XCTest

/// `run` decodes the test binary's mapping while the tests run; the report takes it only for that
/// binary, as the first one, and gets the decoding's error as it would have got it itself.
final class MappingPrefetchTests: XCTestCase {
    func testTakenOnlyForTheBinaryItWasStartedFor() throws {
        let prefetch = MappingPrefetch()
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-binary-\(UUID().uuidString).xctest")
        XCTAssertNil(prefetch.take(missing, index: 0), "not started")
        prefetch.start(missing)
        XCTAssertNil(prefetch.take(URL(fileURLWithPath: "/bin/true"), index: 0), "another binary")
        XCTAssertNil(prefetch.take(missing, index: 1), "not the first binary")
        let taken = try XCTUnwrap(prefetch.take(missing, index: 0))
        XCTAssertThrowsError(try taken.get(), "the decoding's own error")
    }
}
