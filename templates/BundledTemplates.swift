// The HTML report's templates and assets. The files beside this one are compiled into the binary
// (`.embedInCode` in Package.swift, listed in `TemplateFiles.all` there), so an installed `testscope`
// needs no source tree. `testscope --templates DIR` reads a user's copies instead.

/// The templates and assets of templates/, compiled into the binary: file name → text.
package enum BundledTemplates {
    package static let files: [String: String] = [
        "layout.mustache": text(PackageResources.layout_mustache),
        "nav.mustache": text(PackageResources.nav_mustache),
        "index.mustache": text(PackageResources.index_mustache),
        "directory.mustache": text(PackageResources.directory_mustache),
        "file.mustache": text(PackageResources.file_mustache),
        "single.mustache": text(PackageResources.single_mustache),
        "totals.mustache": text(PackageResources.totals_mustache),
        "file-table.mustache": text(PackageResources.file_table_mustache),
        "functions.mustache": text(PackageResources.functions_mustache),
        "function-row.mustache": text(PackageResources.function_row_mustache),
        "source-line.mustache": text(PackageResources.source_line_mustache),
        "ratio-cell.mustache": text(PackageResources.ratio_cell_mustache),
        "flaky.mustache": text(PackageResources.flaky_mustache),
        "tests.mustache": text(PackageResources.tests_mustache),
        "tests-index.mustache": text(PackageResources.tests_index_mustache),
        "tests-counts.mustache": text(PackageResources.tests_counts_mustache),
        "tests-name.mustache": text(PackageResources.tests_name_mustache),
        "tests-snippet.mustache": text(PackageResources.tests_snippet_mustache),
        "tests-failure.mustache": text(PackageResources.tests_failure_mustache),
        "file-failures.mustache": text(PackageResources.file_failures_mustache),
        "history.mustache": text(PackageResources.history_mustache),
        "report.css": text(PackageResources.report_css),
        "report.js": text(PackageResources.report_js),
        "head.js": text(PackageResources.head_js),
        "per-test.js": text(PackageResources.per_test_js),
    ]

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
