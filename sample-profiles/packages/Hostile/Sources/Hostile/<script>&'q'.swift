/// Markup in a comment: </textarea> <script>alert(1)</script> &amp; "double" 'single' </pre>
public enum Hostile {
    /// A raw identifier (Swift 6.2) that is markup: the function table must show it as text.
    public static func `<script>alert("x&y")</script>`() -> String {
        "</textarea><script>alert(1)</script> &amp; \"q\" 'a'"
    }

    /// A partially covered line whose never-run part holds markup.
    public static func tagged(_ flag: Bool) -> String {
        guard flag else { return "<b onmouseover=\"alert(2)\">never</b> & \"never\"" }
        return "<img src=x onerror=alert(3)>"
    }

    /// Generic angle brackets in a demangled name.
    public static func wrap<Element>(_ value: Element) -> [Element] { [value] }

    /// Never called: uncovered lines with markup.
    public static func unused() -> String {
        let closing = "</script><script>alert(4)</script>"
        return closing + "<!-- -->"
    }
}
