import Foundation

/// The sum of two numbers.
public func add(_ a: Int, _ b: Int) -> Int {
    a + b
}

/// A greeting, shouted when asked.
public func greet(_ name: String, shouting: Bool = false) -> String {
    let text = "Hello, \(name)!"
    return shouting ? text.uppercased() : text
}

/// Whether this is the first attempt of `name`: the first call with a folder leaves a marker file there.
public func firstAttempt(_ name: String, markerFolder: String?) -> Bool {
    guard let markerFolder else { return false }
    let marker = markerFolder + "/" + name
    if FileManager.default.fileExists(atPath: marker) { return false }
    FileManager.default.createFile(atPath: marker, contents: Data())
    return true
}
