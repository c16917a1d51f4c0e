import Flaky
import XCTest

/// State-setter → brittle across classes: AuthTests sorts before SessionTests, so the brittle test
/// passes in the default order and fails alone or when it runs before the sign-in.
final class AuthTests: XCTestCase {
    /// State-setter.
    func testSignIn() {
        Session.currentUser = "ada"
        XCTAssertEqual(Session.currentUser, "ada")
    }
}

final class SessionTests: XCTestCase {
    /// Brittle: needs a signed-in user that only `AuthTests.testSignIn` provides.
    func testProfileOfSignedInUser() throws {
        let user = try XCTUnwrap(Session.currentUser, "no user signed in")
        XCTAssertEqual(user, "ada")
    }
}
