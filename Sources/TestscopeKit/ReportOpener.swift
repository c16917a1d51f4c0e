import Foundation
import TestscopeExecution

/// `--open`: shows the HTML report a command wrote with the desktop's opener (`xdg-open` on Linux, `open`
/// on macOS). Opening is a convenience: whatever goes wrong is one note, never a failed command.
package enum ReportOpener {
    #if os(macOS)
    static let opener = "open"
    #else
    static let opener = "xdg-open"
    #endif

    /// The page to open among the files written: the coverage or tests `index.html`, else `flaky.html`.
    package static func page(in written: [String]) -> String? {
        written.first { $0.hasSuffix("/index.html") } ?? written.first { $0.hasSuffix("/flaky.html") }
    }

    /// Opens the HTML page among `written`, or says in one line why not.
    package static func open(_ written: [String], terminal: Terminal,
                            environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let page = page(in: written) else {
            terminal.diagnosticLine("note: --open: no HTML report was written (add html to --format)")
            return
        }
        guard let tool = Toolchain.findInPath(opener, environment: environment) else {
            terminal.diagnosticLine("note: --open: \(opener) is not on PATH; open \(page) in a browser")
            return
        }
        // xdg-open hands the page to the browser and returns; its output is not ours to show.
        do {
            let result = try ProcessRunner.run(tool, [page], environment: environment)
            if !result.succeeded {
                terminal.diagnosticLine("note: --open: \(tool.path) exited with status \(result.status); open \(page) in a browser")
            }
        } catch {
            terminal.diagnosticLine("note: --open: cannot start \(tool.path) (\(error.localizedDescription)); open \(page) in a browser")
        }
    }
}
