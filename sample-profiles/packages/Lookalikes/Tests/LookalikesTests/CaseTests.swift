import Testing
import Lookalikes

/// Two cases print `token → Token`; the first (5) fails, the second (6) passes.
@Test(arguments: [Token(5), Token(6)])
func evenTokens(token: Token) {
    #expect(isEven(token.value))
}

/// A repeated literal: three cases, two of which print `value → 1`; all pass.
@Test(arguments: [1, 1, 2])
func positive(value: Int) {
    #expect(value > 0)
}
