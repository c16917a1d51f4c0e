import Foundation

/// PostgreSQL's C client (libpq), loaded with `dlopen` the first time a `postgresql://` history is used:
/// nothing is added to the build (no headers, no Swift package), and a machine without libpq only
/// notices when it asks for PostgreSQL (docs/history.md, "Team history on PostgreSQL").
struct LibPQ: @unchecked Sendable {
    typealias Conn = OpaquePointer
    typealias Result = OpaquePointer
    typealias Strings = UnsafePointer<UnsafePointer<CChar>?>

    let connectdbParams: @convention(c) (Strings?, Strings?, Int32) -> Conn?
    let status: @convention(c) (Conn?) -> Int32
    let errorMessage: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let finish: @convention(c) (Conn?) -> Void
    let resultStatus: @convention(c) (Result?) -> Int32
    let resultErrorMessage: @convention(c) (Result?) -> UnsafePointer<CChar>?
    let resultErrorField: @convention(c) (Result?, Int32) -> UnsafePointer<CChar>?
    let ntuples: @convention(c) (Result?) -> Int32
    let nfields: @convention(c) (Result?) -> Int32
    let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafePointer<CChar>?
    let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    let getlength: @convention(c) (Result?, Int32, Int32) -> Int32
    let clear: @convention(c) (Result?) -> Void
    // The asynchronous calls `PostgresConnection.query` waits with (a bounded wait for a server that stops answering).
    let sendQueryParams: @convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?, Strings?,
                                         UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32
    let setnonblocking: @convention(c) (Conn?, Int32) -> Int32
    let flush: @convention(c) (Conn?) -> Int32
    let socket: @convention(c) (Conn?) -> Int32
    let consumeInput: @convention(c) (Conn?) -> Int32
    let isBusy: @convention(c) (Conn?) -> Int32
    let getResult: @convention(c) (Conn?) -> Result?

    /// libpq's `CONNECTION_OK`, `PGRES_COMMAND_OK`, `PGRES_TUPLES_OK`, `PGRES_FATAL_ERROR` and `PG_DIAG_SQLSTATE` ('C').
    static let connectionOK: Int32 = 0, commandOK: Int32 = 1, tuplesOK: Int32 = 2, fatalError: Int32 = 7, sqlStateField = Int32(UInt8(ascii: "C"))

    /// Where libpq is looked for: `TESTSCOPE_LIBPQ` (a path: only there) or the platform's usual names.
    static func defaultPaths(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        #if os(macOS)
        let system = ["libpq.5.dylib", "/opt/homebrew/opt/libpq/lib/libpq.5.dylib", "/usr/local/opt/libpq/lib/libpq.5.dylib"]
        #else
        let system = ["libpq.so.5"]
        #endif
        return environment["TESTSCOPE_LIBPQ"].map { [$0] } ?? system
    }

    /// The process's libpq, loaded once (nil: none of `defaultPaths` could be loaded).
    static let shared: LibPQ? = try? load(from: defaultPaths())

    /// Loads the first of `paths` that opens and has every function used; throws `LibPQMissing` otherwise.
    static func load(from paths: [String]) throws -> LibPQ {
        for path in paths {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { continue }
            // The handle stays open for the life of the process: the function pointers point into it.
            func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
                guard let pointer = dlsym(handle, name) else { throw LibPQMissing(detail: "\(path) has no \(name)") }
                return unsafeBitCast(pointer, to: type)
            }
            do {
                return LibPQ(
                    connectdbParams: try symbol("PQconnectdbParams", (@convention(c) (Strings?, Strings?, Int32) -> Conn?).self),
                    status: try symbol("PQstatus", (@convention(c) (Conn?) -> Int32).self),
                    errorMessage: try symbol("PQerrorMessage", (@convention(c) (Conn?) -> UnsafePointer<CChar>?).self),
                    finish: try symbol("PQfinish", (@convention(c) (Conn?) -> Void).self),
                    resultStatus: try symbol("PQresultStatus", (@convention(c) (Result?) -> Int32).self),
                    resultErrorMessage: try symbol("PQresultErrorMessage", (@convention(c) (Result?) -> UnsafePointer<CChar>?).self),
                    resultErrorField: try symbol("PQresultErrorField", (@convention(c) (Result?, Int32) -> UnsafePointer<CChar>?).self),
                    ntuples: try symbol("PQntuples", (@convention(c) (Result?) -> Int32).self),
                    nfields: try symbol("PQnfields", (@convention(c) (Result?) -> Int32).self),
                    getvalue: try symbol("PQgetvalue", (@convention(c) (Result?, Int32, Int32) -> UnsafePointer<CChar>?).self),
                    getisnull: try symbol("PQgetisnull", (@convention(c) (Result?, Int32, Int32) -> Int32).self),
                    getlength: try symbol("PQgetlength", (@convention(c) (Result?, Int32, Int32) -> Int32).self),
                    clear: try symbol("PQclear", (@convention(c) (Result?) -> Void).self),
                    sendQueryParams: try symbol("PQsendQueryParams", (@convention(c) (Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?, Strings?,
                                                                                     UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Int32).self),
                    setnonblocking: try symbol("PQsetnonblocking", (@convention(c) (Conn?, Int32) -> Int32).self),
                    flush: try symbol("PQflush", (@convention(c) (Conn?) -> Int32).self),
                    socket: try symbol("PQsocket", (@convention(c) (Conn?) -> Int32).self),
                    consumeInput: try symbol("PQconsumeInput", (@convention(c) (Conn?) -> Int32).self),
                    isBusy: try symbol("PQisBusy", (@convention(c) (Conn?) -> Int32).self),
                    getResult: try symbol("PQgetResult", (@convention(c) (Conn?) -> Result?).self))
            } catch {
                dlclose(handle)
                continue
            }
        }
        throw LibPQMissing(detail: "none of \(paths.joined(separator: ", ")) could be loaded")
    }
}

/// No usable libpq on this machine (which paths were tried).
struct LibPQMissing: Error {
    var detail: String
}

/// A failed statement or connection: libpq's message (one line) and the SQLSTATE when the server sent one.
struct PostgresFailure: Error {
    var message: String
    var sqlState: String?
    /// Lost or never made: the connection failed (SQLSTATE class 08, or no server answer at all).
    var isConnection: Bool { sqlState == nil || sqlState!.hasPrefix("08") || sqlState == "57P01" }
}

/// One connection to a PostgreSQL server. Every value is a parameter (`$1`, text format): user data
/// (test names, messages, branch names) never becomes SQL. Not shared between threads.
final class PostgresConnection {
    private let pq: LibPQ
    private var conn: LibPQ.Conn?

    /// How long a statement may go without its result before the connection is given up (the server's own
    /// `statement_timeout` cannot end a statement when the server has stopped, or the network between us has).
    let answerTimeout: TimeInterval

    /// Connects with `conninfo` (a URL or `key=value` string, expanded by libpq, which also reads
    /// PGHOST, PGPASSWORD, ~/.pgpass and service files) and `defaults` (used unless the conninfo sets them).
    init(_ pq: LibPQ, conninfo: String, defaults: [(String, String)], answerTimeout: TimeInterval = 60) throws {
        self.pq = pq
        self.answerTimeout = answerTimeout
        let pairs = defaults + [("dbname", conninfo)]
        // Keywords before `dbname` are overridden by what the expanded conninfo says (libpq's rule).
        let conn = Self.withCStrings(pairs.map(\.0)) { keywords in
            Self.withCStrings(pairs.map(\.1)) { values in pq.connectdbParams(keywords, values, 1) }
        }
        self.conn = conn
        guard let conn, pq.status(conn) == LibPQ.connectionOK else {
            let message = Self.oneLine(conn.flatMap { pq.errorMessage($0) }.map { String(cString: $0) } ?? "out of memory")
            pq.finish(conn)
            self.conn = nil
            throw PostgresFailure(message: message, sqlState: nil)
        }
        // Sending never blocks either (`query` waits for the socket with a bound instead).
        _ = pq.setnonblocking(conn, 1)
    }

    deinit { close() }

    func close() {
        if let conn { pq.finish(conn) }
        conn = nil
    }

    /// Runs `sql` with `parameters` bound as `$1…`; the rows as text (nil for NULL).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        let result = try succeeded(sql, parameters)
        defer { pq.clear(result) }
        let (rows, columns) = (pq.ntuples(result), pq.nfields(result))
        return (0..<rows).map { row in
            (0..<columns).map { column in
                pq.getisnull(result, row, column) != 0 ? nil : pq.getvalue(result, row, column).map { String(cString: $0) }
            }
        }
    }

    /// Runs the query `sql` through a cursor inside the caller's transaction and hands `body` its rows,
    /// fetched `batch` at a time in binary format (no number printed by the server and parsed here):
    /// memory holds one batch, however many rows there are. Each batch is asked for before the one before
    /// it is read, so the server makes it meanwhile (a batch fits in the socket's buffer): server and client
    /// work at once instead of in turn.
    func forEachRow(_ sql: String, _ parameters: [String?] = [], batch: Int = 2_000, _ body: (PostgresRow) throws -> Void) throws {
        try query("DECLARE testscope_rows NO SCROLL CURSOR FOR \(sql)", parameters)
        let fetch = "FETCH FORWARD \(batch) FROM testscope_rows"
        try send(fetch, [], binary: true)
        while true {
            let result = try answer()
            defer { pq.clear(result) }
            let count = pq.ntuples(result), more = count == batch
            if more { try send(fetch, [], binary: true) }
            do {
                for row in 0..<count { try body(PostgresRow(pq: pq, result: result, row: row)) }
            } catch {
                if more { pq.clear(try? answer()) }
                throw error
            }
            if !more { break }
        }
        try query("CLOSE testscope_rows")
    }

    /// Runs `sql`: its result (the caller clears it), or the failure (the server's message and SQLSTATE).
    private func succeeded(_ sql: String, _ parameters: [String?], binary: Bool = false) throws -> LibPQ.Result {
        try send(sql, parameters, binary: binary)
        return try answer()
    }

    /// Sends `sql` (PQsendQueryParams) and flushes it as the socket allows, within `answerTimeout` (a server
    /// that stays silent longer loses the connection: "server away").
    private func send(_ sql: String, _ parameters: [String?], binary: Bool) throws {
        guard let conn else { throw PostgresFailure(message: "the connection is closed", sqlState: nil) }
        let sent = Self.withCStrings(parameters) { values in
            pq.sendQueryParams(conn, sql, Int32(parameters.count), nil, values, nil, nil, binary ? 1 : 0)
        }
        guard sent == 1 else { throw connectionFailure(conn) }
        let deadline = Date().addingTimeInterval(answerTimeout)
        var unsent = pq.flush(conn)
        while unsent != 0 {
            guard unsent > 0 else { throw connectionFailure(conn) }
            // libpq's rule: while sending, also read (the server may be answering and waiting for us to read).
            if try wait(conn, for: Int16(POLLIN | POLLOUT), until: deadline) & Int16(POLLIN) != 0, pq.consumeInput(conn) == 0 {
                throw connectionFailure(conn)
            }
            unsent = pq.flush(conn)
        }
    }

    /// The answer to the statement sent last: its result (the caller clears it), or the failure (the
    /// server's message and SQLSTATE). Waited for at most `answerTimeout` from now, not from the send: a
    /// batch asked for early waits while the client reads the one before.
    private func answer() throws -> LibPQ.Result {
        guard let conn else { throw PostgresFailure(message: "the connection is closed", sqlState: nil) }
        let result = try results(conn, until: Date().addingTimeInterval(answerTimeout))
        let status = pq.resultStatus(result)
        guard let result, status == LibPQ.commandOK || status == LibPQ.tuplesOK else {
            defer { pq.clear(result) }
            let text = result.flatMap { pq.resultErrorMessage($0) }.map { String(cString: $0) } ?? ""
            let message = text.isEmpty ? pq.errorMessage(conn).map { String(cString: $0) } ?? "no result" : text
            throw PostgresFailure(message: Self.oneLine(message), sqlState: result.flatMap { pq.resultErrorField($0, LibPQ.sqlStateField) }.map { String(cString: $0) })
        }
        return result
    }

    /// The results of the statement sent, read as they come, each wait bounded by `deadline`: its first
    /// error, else its last result (PQexec's choice); nil when libpq had none.
    private func results(_ conn: LibPQ.Conn, until deadline: Date) throws -> LibPQ.Result? {
        var kept: LibPQ.Result?
        do {
            while true {
                while pq.isBusy(conn) != 0 {
                    _ = try wait(conn, for: Int16(POLLIN), until: deadline)
                    guard pq.consumeInput(conn) == 1 else { throw connectionFailure(conn) }
                }
                guard let next = pq.getResult(conn) else { return kept }
                if let first = kept, pq.resultStatus(first) == LibPQ.fatalError {
                    pq.clear(next)
                } else {
                    pq.clear(kept)
                    kept = next
                }
            }
        } catch {
            pq.clear(kept)
            throw error
        }
    }

    /// Waits until the socket is ready for `events` (the ready ones); past `deadline`, closes the connection and throws.
    private func wait(_ conn: LibPQ.Conn, for events: Int16, until deadline: Date) throws -> Int16 {
        var descriptor = pollfd(fd: pq.socket(conn), events: events, revents: 0)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { break }
            // At most a second at a time, then `events` as if ready: over TLS, OpenSSL may hold bytes already
            // read from the socket that poll cannot see, and the caller's PQconsumeInput takes them.
            let ready = poll(&descriptor, 1, Int32(min(left * 1000, 1_000).rounded(.up)))
            if ready > 0 { return descriptor.revents }
            if ready == 0 { return events }
            if ready < 0 && errno != EINTR { throw connectionFailure(conn) }
        }
        close()
        throw PostgresFailure(message: "the server did not answer within \(Int(answerTimeout)) s", sqlState: nil)
    }

    /// The connection's own message (lost, or the statement could not be sent): a failure without SQLSTATE, "server away".
    private func connectionFailure(_ conn: LibPQ.Conn) -> PostgresFailure {
        PostgresFailure(message: Self.oneLine(pq.errorMessage(conn).map { String(cString: $0) } ?? "the connection failed"), sqlState: nil)
    }

    /// Runs `body` in one transaction (committed, or rolled back when it throws).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN")
        do {
            let value = try body()
            try query("COMMIT")
            return value
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// libpq's messages span lines ("connection to server … failed: FATAL:  …\n"): one line, spaces collapsed.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `strings` as a C array of C strings (nil entries stay NULL) for the length of `body`.
    private static func withCStrings<T>(_ strings: [String?], _ body: (LibPQ.Strings?) -> T) -> T {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// One row of a `forEachRow` batch in PostgreSQL's binary format, read in place: integers and float8
/// big-endian, text as its UTF-8 bytes.
struct PostgresRow {
    let pq: LibPQ
    let result: LibPQ.Result
    let row: Int32

    func isNull(_ column: Int32) -> Bool { pq.getisnull(result, row, column) != 0 }

    func text(_ column: Int32) -> String? {
        guard !isNull(column), let value = pq.getvalue(result, row, column) else { return nil }
        let length = Int(pq.getlength(result, row, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
    }

    /// A bigint or an integer (8 or 4 bytes, sign-extended).
    func int(_ column: Int32) -> Int64 {
        let length = Int(pq.getlength(result, row, column))
        let bits = bigEndian(column)
        return length == 4 ? Int64(Int32(truncatingIfNeeded: bits)) : Int64(bitPattern: bits)
    }

    func double(_ column: Int32) -> Double? { isNull(column) ? nil : Double(bitPattern: bigEndian(column)) }

    private func bigEndian(_ column: Int32) -> UInt64 {
        guard let value = pq.getvalue(result, row, column) else { return 0 }
        var bits: UInt64 = 0
        for i in 0..<min(8, Int(pq.getlength(result, row, column))) { bits = bits << 8 | UInt64(UInt8(bitPattern: value[i])) }
        return bits
    }
}
