import Foundation
import XCTest
import TestscopeExecution
import TestscopeTestSupport

/// Hostile inputs (issue #11): export records that cannot be true, JUnit files with entities, pipes as
/// inputs, output folders that are files, unwritable or hold symbolic links. Same rules as the rest of
/// `BadInputTests`: the documented status, one `testscope: error:` line, nothing written outside `--output`.
extension BadInputTests {
    /// The recorded Shapes export with `old` (exactly once in it) replaced by `new`, and the arguments
    /// that map it onto the fixture package.
    private func editedExport(_ box: Sandbox, _ name: String, _ old: String, _ new: String) throws -> (URL, [String]) {
        let text = try String(contentsOf: recorded("Shapes/coverage.json"), encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: old).count - 1, 1, "expected exactly one \(old) in the recorded export")
        let url = try box.input(name, Data(text.replacingOccurrences(of: old, with: new).utf8))
        let root = try TestscopeProcess.recordedRoot("Shapes")
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        return (url, ["--package-path", package.path, "--path-equivalence", "\(root),\(package.path)"])
    }

    /// 16. Line numbers of 2,000,000,000 and 2^63, negative lines and counts, counts of 2^64 and 1e30,
    /// a column 0, a region pointing at a file the function does not have: 65 naming the file and the record.
    func testExportRecordsThatCannotBeTrueAreBadInput() throws {
        let segment = "[3,62,1,true,true,false]"  // the first segment of Describe.swift
        let region = "[3,62,12,6,1,0,0,0]"        // Describe.label(for:)'s region
        let cases: [(old: String, new: String, record: String, problem: String)] = [
            (segment, "[2000000000,62,1,true,true,false]", "segment 1 of file", "2000000000 is beyond 10000000"),
            (segment, "[9223372036854775808,62,1,true,true,false]", "segment 1 of file", "beyond 10000000"),
            (segment, "[-3,62,1,true,true,false]", "segment 1 of file", "line number is negative"),
            (segment, "[3,62,-1,true,true,false]", "segment 1 of file", "count is negative"),
            (segment, "[3,62,18446744073709551616,true,true,false]", "segment 1 of file", "2^64 or more"),
            (segment, "[3,62,1e30,true,true,false]", "segment 1 of file", "not an integer (1e30)"),
            (segment, "[3,0,1,true,true,false]", "segment 1 of file", "column number is 0"),
            (region, "[3,62,12,6,1,4,0,0]", #"region 1 of function "$s6Shapes8DescribeO5label3forSSAA5Shape_p_tFZ""#, "file index 4"),
        ]
        for (index, edit) in cases.enumerated() {
            let box = try Sandbox(self)
            let (export, mapping) = try editedExport(box, "hostile-\(index).json", edit.old, edit.new)
            let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
            let started = Date()
            let result = try box.run(["report", "--export", export.path] + mapping, watching: [package])
            XCTAssertLessThan(Date().timeIntervalSince(started), 30, edit.new)
            assertBadInput(result, naming: [export.path, edit.record], mentioning: [edit.problem, "llvm-cov export"])
            if edit.old == segment {
                XCTAssertTrue(result.stderr.contains("Sources/Shapes/Describe.swift"), result.stderr)
            }
            box.assertNoReports()
        }
    }

    // 17. Segments out of order give the same report: TestscopeKitTests' ReportInProcessTests (a report that succeeds).

    /// 18. JUnit files that are not well-formed, entity bombs and external entities: 65 with a sentence,
    /// no Foundation text, nothing read from the entity's file.
    func testHostileJUnitFilesAreBadInputInTestscopesWords() throws {
        let lol = (2...9).map { n in
            #"<!ENTITY lol\#(n) ""# + String(repeating: "&lol\(n - 1);", count: 10) + #"">"#
        }.joined()
        let cases: [(name: String, xml: String, words: String)] = [
            ("bomb.xml", #"<?xml version="1.0"?><!DOCTYPE t [<!ENTITY lol1 "lol">\#(lol)]><testsuites><testsuite name="&lol9;"/></testsuites>"#,
             "entity bomb"),
            ("external.xml", #"<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuites><testsuite name="s"><testcase classname="A" name="&x;"/></testsuite></testsuites>"#,
             "external entity"),
            ("truncated.xml", #"<testsuites><testsuite name="s"><testcase classname="A" name="b">"#, "ends before"),
            ("mismatched.xml", #"<testsuites><testsuite name="s"></testcase></testsuites>"#, "does not match"),
        ]
        for (name, xml, words) in cases {
            let box = try Sandbox(self)
            let file = try box.input(name, Data(xml.utf8))
            let result = try box.run(["report", "--junit", file.path])
            assertBadInput(result, naming: [file.path], mentioning: ["not a JUnit XML file", words])
            XCTAssertFalse(result.stderr.contains("NSXMLParserErrorDomain") || result.stderr.contains("could not be completed"), result.stderr)
            XCTAssertFalse(result.stderr.contains("root:"), "the external entity was read: \(result.stderr)")
        }
    }

    /// 19. Every input may be a pipe (`<(cmd)`, /dev/fd/N): the same report as from the file.
    func testInputsMayBePipes() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let root = try TestscopeProcess.recordedRoot("Shapes")
        let shapes = recorded("Shapes").path
        let cases: [(option: String, file: String, extra: String, format: String)] = [
            ("--export", "coverage.json", "--package-path '\(package.path)' --path-equivalence '\(root),\(package.path)'", "json"),
            ("--test-log", "swift-test.log", "", "json"),
            ("--event-stream", "swift-testing-events.jsonl", "", "json"),
            ("--junit", "xunit.xml", "", "json"),
            ("--test-list", "test-list.txt", "--test-log '\(shapes)/swift-test.log'", "json"),
        ]
        for (option, file, extra, format) in cases {
            var reports: [String] = []
            for useFile in [true, false] {
                let box = try Sandbox(self)
                let input = useFile ? "'\(shapes)/\(file)'" : "<(cat '\(shapes)/\(file)')"
                let command = "'\(TestscopeProcess.executable.path)' report \(option) \(input) \(extra) --format \(format) --output '\(box.output.path)'"
                let result = try TestscopeProcess.runShell(command, in: box.cwd)
                assertNoCrash(result)
                XCTAssertEqual(result.status, 0, "\(option) \(input): \(result.stderr)")
                let name = option == "--export" ? "coverage.json" : "tests.json"
                let text = (try? String(contentsOf: box.output.appendingPathComponent(name), encoding: .utf8)) ?? ""
                // The input's name is in the report (generatedFrom): compare without it.
                reports.append(text.replacingOccurrences(of: #""/dev/fd/\d+""#, with: "INPUT", options: .regularExpression)
                    .replacingOccurrences(of: "\"\(shapes)/\(file)\"", with: "INPUT")
                    .replacingOccurrences(of: #""\d{4}-\d\d-\d\dT[^"]*""#, with: "DATE", options: .regularExpression))
            }
            XCTAssertFalse(reports[0].isEmpty, option)
            XCTAssertEqual(reports[0], reports[1], "\(option): the pipe gave another report than the file")
        }
    }

    /// 20. An output path that is a file, under a file, or not writable: 65, one sentence, no Foundation text.
    func testOutputPathsThatCannotBeFoldersAreBadInput() throws {
        let box = try Sandbox(self)
        let file = try box.input("a-file", Data("x".utf8))
        let export = recorded("Shapes/coverage.json")
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let mapping = ["--package-path", package.path, "--path-equivalence", "\(try TestscopeProcess.recordedRoot("Shapes")),\(package.path)"]
        var cases: [(output: String, words: String)] = [
            (file.path, "a file of that name is in the way"),
            (file.appendingPathComponent("sub").path, "cannot be created"),
        ]
        #if os(Linux)
        cases.append(("/proc/testscope-out", "cannot write /proc/testscope-out"))  // a folder no one can write into
        #endif
        for (output, words) in cases {
            let result = try TestscopeProcess.run(["report", "--export", export.path, "--output", output] + mapping, in: box.cwd)
            assertBadInput(result, naming: [output], mentioning: [words])
            XCTAssertFalse(result.stderr.contains("could not be completed") || result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "x")
    }

    /// 21. A symbolic link inside an existing output folder (`out/files → elsewhere`) is never written
    /// through: refused with one line, and the folder it points at is unchanged.
    func testSymbolicLinkInTheOutputFolderIsNotWrittenThrough() throws {
        let box = try Sandbox(self)
        let elsewhere = box.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: elsewhere.appendingPathComponent("mine.txt"))
        try FileManager.default.createDirectory(at: box.output, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: box.output.appendingPathComponent("files"), withDestinationURL: elsewhere)
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let root = try TestscopeProcess.recordedRoot("Shapes")
        let result = try box.run(["report", "--export", recorded("Shapes/coverage.json").path, "--package-path", package.path,
                                  "--path-equivalence", "\(root),\(package.path)", "--format", "html"],
                                 watching: [package, elsewhere])
        assertBadInput(result, naming: [box.output.appendingPathComponent("files").path, elsewhere.path],
                       mentioning: ["symbolic link", "remove the link"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), ["mine.txt"])

        // A report file that is a link is replaced by the new file; its target is left alone.
        let box2 = try Sandbox(self)
        let target = box2.root.appendingPathComponent("target.txt")
        try Data("keep".utf8).write(to: target)
        try FileManager.default.createDirectory(at: box2.output, withIntermediateDirectories: true)
        let link = box2.output.appendingPathComponent("coverage.lcov")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let second = try box2.run(["report", "--export", recorded("Shapes/coverage.json").path, "--package-path", package.path,
                                   "--path-equivalence", "\(root),\(package.path)", "--format", "lcov"], watching: [package])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "keep")
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link.path))
        XCTAssertTrue(try String(contentsOf: link, encoding: .utf8).contains("DA:"))
    }
}

extension BadInputTests {
    /// 22. A `--templates` file with 10,000 nested sections (a stack overflow in the Mustache parser
    /// before): 65 naming the template and its line, no crash, no report.
    func testDeeplyNestedTemplateIsBadInput() throws {
        let box = try Sandbox(self)
        let templates = box.inputs.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let levels = 10_000
        let text = "<p>\n" + (0..<levels).map { "{{#a\($0)}}" }.joined() + "x" + (0..<levels).reversed().map { "{{/a\($0)}}" }.joined()
        let file = templates.appendingPathComponent("totals.mustache")
        try Data(text.utf8).write(to: file)
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let root = try TestscopeProcess.recordedRoot("Shapes")
        let result = try box.run(["report", "--export", recorded("Shapes/coverage.json").path, "--package-path", package.path,
                                  "--path-equivalence", "\(root),\(package.path)", "--templates", templates.path, "--format", "html"],
                                 watching: [package])
        assertBadInput(result, naming: [file.path + " line 2"], mentioning: ["\(levels) levels deep", "more than the 100"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.output.appendingPathComponent("index.html").path))
    }
}

extension BadInputTests {
    /// 23. A 10 MB failure message and a 10 MB output line (the recorded Crashy log, lengthened): junit.xml
    /// stays readable by libxml2 without `--huge` (xmllint against both schemas with `--junit-strict`) and by
    /// junitparser, tests.html is bounded too, and tests.json keeps the full text.
    func testHugeMessagesAndOutputAreCutInXMLAndHTML() throws {
        let box = try Sandbox(self)
        var log = try String(contentsOf: recorded("Crashy/swift-test.log"), encoding: .utf8)
        let huge = String(repeating: "0123456789", count: 1_000_000)  // 10 MB
        let message = "- double is wrong\n"
        XCTAssertEqual(log.components(separatedBy: message).count - 1, 1)
        log = log.replacingOccurrences(of: message, with: "- double is wrong " + huge + "\u{0B}\u{1B}[31m<&>\n")
        let passes = "Test Case 'CrashyXCTests.testA_passes' passed"
        XCTAssertEqual(log.components(separatedBy: passes).count - 1, 1)
        log = log.replacingOccurrences(of: passes, with: "output " + huge + "\n" + passes)
        let input = try box.input("huge.log", Data(log.utf8))
        // One run (the XCTest log parser takes several seconds over a 10 MB line): the strict JUnit, valid against both schemas.
        for strict in [true] {
            let result = try box.run(["report", "--test-log", input.path, "--format", "junit,html,json"] + (strict ? ["--junit-strict"] : []))
            assertNoCrash(result)
            XCTAssertEqual(result.status, 1, result.stderr)  // the log has a failing test
            let junit = box.output.appendingPathComponent("junit.xml")
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: junit.path)[.size] as? NSNumber).intValue
            XCTAssertLessThan(size, 3 << 20, "junit.xml is not bounded")
            let text = try String(contentsOf: junit, encoding: .utf8)
            XCTAssertTrue(text.contains("bytes cut, full text in tests.json"), "no note where the message was cut")
            XCTAssertFalse(text.contains("\u{0B}") || text.contains("\u{1B}"), "characters illegal in XML 1.0 reached junit.xml")
            for schema in strict ? ConsumerSchemas.strictJUnit : [] {
                let check = try TestscopeProcess.runShell("xmllint --noout --schema '\(schema.path)' '\(junit.path)'")
                XCTAssertEqual(check.status, 0, "\(schema.lastPathComponent): \(check.stderr.prefix(2000))")
            }
            let wellFormed = try TestscopeProcess.runShell("xmllint --noout '\(junit.path)'")
            XCTAssertEqual(wellFormed.status, 0, String(wellFormed.stderr.prefix(2000)))
            let parsed = try TestscopeProcess.runShell("""
                python3 -c 'import sys; from junitparser import JUnitXml, Failure
                x = JUnitXml.fromfile(sys.argv[1]); print(sum(1 for s in x for c in s for r in c.result if isinstance(r, Failure)))' '\(junit.path)'
                """)
            XCTAssertEqual(parsed.status, 0, "junitparser: \(parsed.stderr.suffix(2000))")
            XCTAssertEqual(parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1")
            let page = box.output.appendingPathComponent("tests.html")
            let pageSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? NSNumber).intValue
            XCTAssertLessThan(pageSize, 3 << 20, "tests.html is not bounded")
            XCTAssertTrue(try String(contentsOf: page, encoding: .utf8).contains("bytes cut, full text in tests.json"))
        }
        // tests.json keeps everything.
        let json = try String(contentsOf: box.output.appendingPathComponent("tests.json"), encoding: .utf8)
        XCTAssertEqual(json.components(separatedBy: huge).count - 1, 2, "tests.json lost the full message or output")
    }
}

extension BadInputTests {
    /// 24. Garbage in a build folder's `codecov/` (a raw profile, then an indexed one), with both engines:
    /// 65 naming the file, never 70 with llvm's own text alone.
    func testGarbageInABuildFoldersCodecovIsBadInput() throws {
        for (profile, engine) in [("a.profraw", "native"), ("a.profraw", "llvm-cov"), ("default.profdata", "native"), ("default.profdata", "llvm-cov")] {
            let box = try Sandbox(self)
            let debug = box.inputs.appendingPathComponent("build/debug")
            try FileManager.default.createDirectory(at: debug.appendingPathComponent("codecov"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/ls"), to: debug.appendingPathComponent("XPackageTests.xctest"))
            let garbage = debug.appendingPathComponent("codecov/\(profile)")
            try Data("this is not a profile\n".utf8).write(to: garbage)
            let result = try box.run(["report", "--build-path", box.inputs.appendingPathComponent("build").path, "--engine", engine, "--quiet"])
            assertBadInput(result, naming: [garbage.path], mentioning: ["re-"])
            box.assertNoReports()
        }
    }
}

extension BadInputTests {
    /// The recorded Shapes export and the arguments that map it onto the fixture package.
    private func shapesExport() throws -> (URL, [String]) {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        return (recorded("Shapes/coverage.json"),
                ["--package-path", package.path, "--path-equivalence", "\(try TestscopeProcess.recordedRoot("Shapes")),\(package.path)"])
    }

    /// 25. `--output /` as a user who cannot write there: one line saying the folder is not writable (it
    /// said "refusing to write /coverage.json: it is outside the output folder /", contradicting itself).
    func testAnOutputFolderTheUserCannotWriteIsSaidToBeNotWritable() throws {
        let box = try Sandbox(self)
        let (recordedExport, mapping) = try shapesExport()
        // The sandbox is root's (this suite runs as root, umask 022): `nobody` reads it and can write nowhere in it.
        // The export is read from there: the checkout may be in a folder `nobody` cannot enter (`mktemp -d` is 0700).
        let export = box.root.appendingPathComponent("coverage.json")
        try FileManager.default.copyItem(at: recordedExport, to: export)
        for output in ["/", box.inputs.path] {
            let result = try TestscopeProcess.run(["--reuid=65534", "--regid=65534", "--clear-groups", TestscopeProcess.executable.path,
                                                   "report", "--export", export.path, "--output", output] + mapping,
                                                  in: box.cwd, program: URL(fileURLWithPath: "/usr/bin/setpriv"))
            assertBadInput(result, naming: [output], mentioning: ["cannot write into the output folder \(output): permission denied", "choose another --output"])
            XCTAssertFalse(result.stderr.contains("outside the output folder"), result.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: box.inputs.path), [])
    }

    /// 26. No Swift toolchain on PATH (and no TESTSCOPE_SWIFT): the function names stay mangled, and one
    /// warning says so, why, and what to do; with the toolchain, they are demangled and nothing is said.
    func testMangledNamesWithoutAToolchainAreWarnedOfOnce() throws {
        let box = try Sandbox(self)
        let (export, mapping) = try shapesExport()
        func functionNames(_ result: TestscopeProcess.Result) throws -> [String] {
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: box.output.appendingPathComponent("coverage.json"))) as? [String: Any])
            let files = try XCTUnwrap(json["files"] as? [[String: Any]])
            return files.flatMap { ($0["functions"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        }
        let arguments = ["report", "--export", export.path, "--format", "json", "--output", box.output.path] + mapping
        let bare = try TestscopeProcess.run(arguments, in: box.cwd, environment: ["PATH": "/usr/bin:/bin"],
                                           removing: ["TESTSCOPE_SWIFT", "TESTSCOPE_LLVM_COV", "TESTSCOPE_LLVM_PROFDATA"])
        let mangled = try functionNames(bare)
        XCTAssertFalse(mangled.isEmpty)
        XCTAssertTrue(mangled.allSatisfy { $0.hasPrefix("$s") }, "\(mangled)")
        let warnings = bare.errorLines.filter { $0.contains("mangled") }
        XCTAssertEqual(warnings, ["testscope: warning: function names are shown mangled: no Swift toolchain was found to demangle them (its lib/libswiftDemangle); put the toolchain's swift on PATH or set TESTSCOPE_SWIFT to it"], bare.stderr)

        let withToolchain = try TestscopeProcess.run(arguments, in: box.cwd)
        XCTAssertFalse(try functionNames(withToolchain).contains { $0.hasPrefix("$s") })
        XCTAssertFalse(withToolchain.stderr.contains("mangled"), withToolchain.stderr)
    }
}
