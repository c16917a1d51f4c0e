import Testing
import Shapes

@Test func circleArea() {
    #expect(Circle(radius: 1).area > 3)
}

@Test(arguments: [1.0, 2.0])
func rectSquares(side: Double) {
    #expect(Rect(width: side, height: side).area == side * side)
}
