import XCTest
import Shapes

final class ShapesTests: XCTestCase {
    func testRectArea() {
        XCTAssertEqual(Rect(width: 2, height: 3).area, 6)
    }

    func testLargest() {
        let rects = [Rect(width: 1, height: 1), Rect(width: 5, height: 5)]
        XCTAssertEqual(largest(rects)?.width, 5)
        let circles = [Circle(radius: 1), Circle(radius: 2)]
        XCTAssertEqual(largest(circles)?.radius, 2)
    }

    func testValidated() throws {
        XCTAssertEqual(try validated(Rect(width: 1, height: 2)).width, 1)
    }

    func testTotalArea() {
        let shapes: [any Shape] = [Rect(width: 5, height: 5), Circle(radius: 1)]
        XCTAssertEqual(totalArea(shapes, onlyBig: true), 25)
    }

    func testDescribe() {
        XCTAssertEqual(Describe.summary([Rect(width: 1, height: 2)]), "rect 1.0x2.0")
    }
}
