import Mustache

/// A typed view model handed to a Mustache template. Each one names its values itself
/// (`MustacheParent`) instead of going through `Mirror`, which is several times slower and would
/// let an absent optional fall through to an outer section's value of the same name: an optional
/// that is nil is `false` to the template (the section is skipped), an unknown name is nil (looked
/// up in the enclosing sections), exactly as the dictionaries these replace did. Values are plain
/// text that the template escapes, except the ones documented as markup built (and escaped) here.
protocol HTMLViewModel: MustacheParent, Sendable {}

extension Optional where Wrapped: Sendable {
    /// The template's value of an optional: the value, or `false` so that `{{#name}}` is skipped.
    var orFalse: Any { self.map { $0 as Any } ?? false }
}

/// What the layout (`layout.mustache`, `nav.mustache`) and every page body share: the package, the
/// top bar, the generator and, on coverage pages, the watermarks.
struct PageCommon: HTMLViewModel {
    /// `""` or `"../"`: from the page to the report's folder.
    var root: String
    var package: String
    var packageRoot: String
    var generator: String
    var createdAt: String
    var nav: [NavigationLink]
    var watermarkLow: String?
    var watermarkHigh: String?

    func child(named name: String) -> Any? {
        switch name {
        case "root": return root
        case "package": return package
        case "packageRoot": return packageRoot
        case "generator": return generator
        case "createdAt": return createdAt
        case "nav": return nav
        case "watermarkLow": return watermarkLow
        case "watermarkHigh": return watermarkHigh
        default: return nil
        }
    }
}

/// A top-bar link.
struct NavigationLink: HTMLViewModel {
    var title: String
    var href: String
    var current: Bool

    func child(named name: String) -> Any? {
        switch name {
        case "title": return title
        case "href": return href
        case "current": return current
        default: return nil
        }
    }
}

/// `layout.mustache`: the document around a page body. `body`, `headScript`, `css` and `script` are
/// markup (escaped by their builders); `css`/`script` only when the assets are inlined.
struct LayoutModel: HTMLViewModel {
    var common: PageCommon
    var title: String
    var pageKind: String
    var body: String
    var inlineAssets: Bool
    var headScript: String
    var css: String?
    var script: String?
    /// `run --per-test-coverage` wrote `files/<page>.tests.js` for this report's file pages.
    var perTestData = false
    /// The Tests page of a per-test run: the chunks of `per-test/` (`PerTestPages`).
    var perTestChunks: String?

    /// The layout of a page with `templates`' assets (inlined when `inline`).
    init(common: PageCommon, title: String, pageKind: String, body: String, inline: Bool, templates: HTMLTemplates) {
        self.common = common
        self.title = title
        self.pageKind = pageKind
        self.body = body
        self.inlineAssets = inline
        self.headScript = templates.headScript
        if inline {
            css = HTMLEscaping.inlineElementText(templates.assets["report.css"] ?? "")
            script = HTMLEscaping.inlineElementText(templates.assets["report.js"] ?? "")
        }
    }

    func child(named name: String) -> Any? {
        switch name {
        case "title": return title
        case "pageKind": return pageKind
        case "body": return body
        case "inlineAssets": return inlineAssets
        case "headScript": return headScript
        case "css": return css
        case "script": return script
        case "perTestData": return perTestData
        case "perTestChunks": return perTestChunks.orFalse
        default: return common.child(named: name)
        }
    }
}

/// A fact of a page head (`dt`/`dd` with a tooltip).
struct FactModel: HTMLViewModel {
    var label: String
    var value: String
    var detail: String

    func child(named name: String) -> Any? {
        switch name {
        case "label": return label
        case "value": return value
        case "detail": return detail
        default: return nil
        }
    }
}

/// A covered/total pair: `text` ("85.71%" or "–"), `level` (hi, mid, lo, na), `width` for bars,
/// `sort` (the percentage, -1 for 0/0); a totals card also has its `key` and `name`.
struct RatioModel: HTMLViewModel {
    var text: String
    var covered: String
    var total: String
    var level: String
    var width: String
    var sort: String
    var key: String?
    var name: String?

    func child(named name: String) -> Any? {
        switch name {
        case "text": return text
        case "covered": return covered
        case "total": return total
        case "level": return level
        case "width": return width
        case "sort": return sort
        case "key": return key
        case "name": return self.name
        default: return nil
        }
    }
}

/// Lines, functions and regions of a table row.
struct SummaryCells: Sendable {
    var lines: RatioModel
    var functions: RatioModel
    var regions: RatioModel

    func child(named name: String) -> Any? {
        switch name {
        case "lines": return lines
        case "functions": return functions
        case "regions": return regions
        default: return nil
        }
    }
}

/// A row of a file table; `href` is relative to the page showing the table.
struct FileRowModel: HTMLViewModel {
    var cells: SummaryCells
    var path: String
    var dir: String
    var base: String
    var href: String
    var missed: String
    var full: Bool
    /// Changed since `--diff-base` (the index's "Only changed files" filter).
    var changed = false

    func child(named name: String) -> Any? {
        switch name {
        case "changed": return changed
        case "path": return path
        case "dir": return dir
        case "base": return base
        case "href": return href
        case "missed": return missed
        case "full": return full
        default: return cells.child(named: name)
        }
    }
}

/// A directory or target row; directory rows also have their `path`, tree `depth` and page `href`.
struct GroupRowModel: HTMLViewModel {
    var cells: SummaryCells
    var name: String
    var files: String
    var path: String?
    var depth: String?
    var href: String?

    func child(named name: String) -> Any? {
        switch name {
        case "name": return self.name
        case "files": return files
        case "path": return path
        case "depth": return depth
        case "href": return href.orFalse
        default: return cells.child(named: name)
        }
    }
}

/// `file-table.mustache`: the rows, their count and the pager of a table split into pages.
struct FileTableModel: HTMLViewModel {
    var files: [FileRowModel]
    var pages: PagerModel?
    /// The report has diff coverage: the table offers the changed-files filter.
    var hasChanges = false

    func child(named name: String) -> Any? {
        switch name {
        case "hasChanges": return hasChanges
        case "files": return files
        case "count": return String(files.count)
        case "countLabel": return files.count == 1 ? "1 file" : "\(files.count) files"
        case "pages": return pages.orFalse
        default: return nil
        }
    }
}

/// Links to the pages of a table split into pages.
struct PagerModel: HTMLViewModel {
    struct Link: HTMLViewModel {
        var label: String
        var href: String
        var current: Bool

        func child(named name: String) -> Any? {
            switch name {
            case "label": return label
            case "href": return href
            case "current": return current
            default: return nil
            }
        }
    }

    var links: [Link]

    func child(named name: String) -> Any? { name == "links" ? links : nil }
}
