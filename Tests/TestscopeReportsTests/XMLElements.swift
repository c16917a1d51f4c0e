import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an XML document in document order, each with its attributes, text and the names
/// of its ancestors: what the format tests check structure and required attributes with.
struct XMLElements {
    struct Element {
        var name: String
        var attributes: [String: String]
        var ancestors: [String]
        var text = ""
    }

    var elements: [Element] = []

    /// Parses `text`; fails the caller's test through the thrown error when it is not well-formed XML.
    static func parse(_ text: String) throws -> XMLElements {
        let delegate = Delegate()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = delegate
        guard parser.parse() else { throw ParseError(message: parser.parserError.map { "\($0)" } ?? "not well-formed") }
        return XMLElements(elements: delegate.elements)
    }

    struct ParseError: Error { var message: String }

    func named(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    final class Delegate: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(Element(name: name, attributes: attributes, ancestors: open.map { elements[$0].name }))
            open.append(elements.count - 1)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }
    }
}
