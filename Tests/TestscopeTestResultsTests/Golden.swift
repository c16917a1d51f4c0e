import TestscopeTestSupport

/// This test target's goldens (Goldens/ beside these files).
let Golden = TestscopeTestSupport.Golden()
