import Foundation
import PackagePlugin

/// `swift package testscope run|report|flaky …`: runs the `testscope` executable of this package on the
/// package the command is given in, with the arguments passed on.
///
/// SwiftPM holds the lock on the package's `.build` while a plugin runs, so a nested `swift build` there
/// waits forever, and so does `swift package describe` (verified here: testscope's `describe` of the package
/// hung under the plugin). Every subcommand therefore gets one build folder inside the plugin's own work
/// folder (`.build/plugins/TestscopePlugin/outputs/build`: `flaky` reuses `run`'s build) unless `--scratch-path`
/// is given. `packageManager.test(enableCodeCoverage:)` is not used: on Swift 6.3.1 (Linux) it rebuilds
/// without instrumentation and fails, and it skips Swift Testing.
@main
struct TestscopePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "testscope")
        let workFolder = context.pluginWorkDirectoryURL
        let arguments = PluginArguments.forwarded(arguments, packageDirectory: context.package.directoryURL.path,
                                                  workFolder: workFolder.path)
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        // Relative paths (`--output reports`) are taken from the package folder, where `swift package` runs.
        process.currentDirectoryURL = context.package.directoryURL
        // Output and errors go straight to the user's terminal (the process inherits the plugin's streams).
        try process.run()
        process.waitUntilExit()
        let status = process.terminationStatus
        if status != 0 {
            // testscope printed its own error line; name its documented status (1, 2, 3, 64, 65), because
            // `swift package` itself exits 1 for any failed plugin (measured: a failed gate, 2, gave 1).
            Diagnostics.error("testscope exited with status \(status)")
            exit(status)
        }
    }
}

/// The arguments given to `testscope`: the user's, with `--package-path` and `--scratch-path` added.
enum PluginArguments {
    static func forwarded(_ arguments: [String], packageDirectory: String, workFolder: String) -> [String] {
        guard let subcommand = arguments.first, ["run", "report", "flaky"].contains(subcommand) else { return arguments }
        // Options after `--` belong to swift build; only the part before it is searched and extended.
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let own = arguments[1..<end]
        func has(_ option: String) -> Bool { own.contains { $0 == option || $0.hasPrefix(option + "=") } }
        var added: [String] = []
        if !has("--package-path") { added += ["--package-path", packageDirectory] }
        // `report` reads the package with `swift package describe`, which needs an unlocked build folder too;
        // `run`'s is already resolved, so describing there is quick.
        if !has("--scratch-path") { added += ["--scratch-path", workFolder + "/build"] }
        return [subcommand] + added + Array(arguments.dropFirst())
    }
}
