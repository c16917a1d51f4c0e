import Foundation
import TestscopeExecution

/// A throwaway PostgreSQL server for the tests (no mock): `initdb` into a temporary folder, `pg_ctl start`
/// listening on a Unix socket in that folder (and, when asked, on 127.0.0.1 with or without TLS), stopped and removed by `stop()`. initdb refuses to run
/// as root (CI and this machine are root): then every server command runs as Debian's `postgres` user,
/// which owns the folder. A server that cannot start is an error naming why: the tests fail, never skip.
package final class PostgresCluster {
    package let folder: URL
    /// The server's port (also the name of its socket, `.s.PGSQL.<port>`): 5432 on the socket alone, a free one on TCP.
    package let port: Int
    private let listening: Listening
    private let bin: URL
    private let asUser: String?

    /// The cluster's superuser (trust on the socket) and a role that must give its password.
    package static let superuser = "postgres", passwordUser = "tsuser", password = "s3cret-pw"

    /// One server per test process, started on first use (about a second), stopped by `stopShared()`.
    nonisolated(unsafe) private static var shared: Result<PostgresCluster, Error>?

    package static func sharedCluster() throws -> PostgresCluster {
        if shared == nil { shared = Result { try PostgresCluster() } }
        return try shared!.get()
    }

    package static func stopShared() {
        if case let .success(cluster)? = shared { cluster.stop() }
        shared = nil
    }

    /// Where the server listens: its socket only, or also 127.0.0.1 (plain, or TLS with a certificate for
    /// `localhost` and 127.0.0.1 signed by a CA made for it, `caCertificate`).
    package enum Listening { case socket, tcp, tls }

    /// A server of its own (`sharedCluster` for most tests): for a test that stops it, or listens on TCP.
    package init(listening: Listening = .socket) throws {
        self.listening = listening
        port = listening == .socket ? 5432 : try Self.freePort()
        bin = try Self.binFolder()
        asUser = getuid() == 0 ? "postgres" : nil
        // Short: a socket's path is limited to about 100 bytes.
        folder = URL(fileURLWithPath: "/tmp/tspg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            if let asUser {
                guard let account = getpwnam(asUser) else { throw ClusterError("initdb refuses root and there is no \(asUser) user (install Debian's postgresql)") }
                guard chown(folder.path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else { throw ClusterError("chown \(folder.path) failed") }
            }
            try run("initdb", ["-D", data.path, "-U", Self.superuser, "--auth=trust", "--no-sync", "--no-locale", "-E", "UTF8"])
            // A role that must give its password (the wrong-password test); everyone else is trusted on the socket.
            try """
                local all \(Self.passwordUser) scram-sha-256
                local all all trust
                host all \(Self.passwordUser) 127.0.0.1/32 scram-sha-256
                host all all 127.0.0.1/32 trust

                """.write(to: data.appendingPathComponent("pg_hba.conf"), atomically: false, encoding: .utf8)
            if listening == .tls { try makeCertificates() }
            try start()
            try sql("CREATE ROLE \(Self.passwordUser) LOGIN PASSWORD '\(Self.password)'")
        } catch {
            stop()
            throw error
        }
    }

    private var data: URL { folder.appendingPathComponent("data") }

    /// The CA that signed the TLS server's certificate (`sslrootcert=` of a `verify-full` URL).
    package var caCertificate: URL { folder.appendingPathComponent("ca.crt") }

    /// A CA of its own and the server's key and certificate (for `localhost` and 127.0.0.1), made with openssl;
    /// the key owned by the server's user and private to it (the server refuses it otherwise).
    private func makeCertificates() throws {
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(to: folder.appendingPathComponent("server.ext"), atomically: false, encoding: .utf8)
        try Self.makeCA(caCertificate, key: folder.appendingPathComponent("ca.key"))
        try Self.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
                          "-keyout", folder.appendingPathComponent("server.key").path, "-out", folder.appendingPathComponent("server.csr").path])
        try Self.openssl(["x509", "-req", "-days", "2", "-in", folder.appendingPathComponent("server.csr").path,
                          "-CA", caCertificate.path, "-CAkey", folder.appendingPathComponent("ca.key").path, "-CAcreateserial",
                          "-extfile", folder.appendingPathComponent("server.ext").path, "-out", folder.appendingPathComponent("server.crt").path])
        for name in ["server.key", "server.crt"] {
            let path = folder.appendingPathComponent(name).path
            guard chmod(path, 0o600) == 0 else { throw ClusterError("chmod \(path) failed") }
            if let asUser, let account = getpwnam(asUser), chown(path, account.pointee.pw_uid, account.pointee.pw_gid) != 0 {
                throw ClusterError("chown \(path) failed")
            }
        }
    }

    /// A self-signed CA certificate at `certificate` (another CA than the server's, for a test that must not trust it).
    package static func makeCA(_ certificate: URL, key: URL) throws {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                     "-subj", "/CN=Testscope test CA \(UUID().uuidString.prefix(8))", "-keyout", key.path, "-out", certificate.path])
    }

    private static func openssl(_ arguments: [String]) throws {
        guard let openssl = Toolchain.findInPath("openssl", environment: ProcessInfo.processInfo.environment) else { throw ClusterError("no openssl on PATH") }
        let result = try ProcessRunner.run(openssl, arguments)
        guard result.succeeded else { throw ClusterError("openssl \(arguments[0]) failed: \(result.stderrText)") }
    }

    /// A port nobody listens on now (the kernel's choice for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let (descriptor, port) = try localSocket(listening: false)
        close(descriptor)
        return port
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel chooses (listening, with a backlog, when asked), and
    /// that port; the caller closes it.
    package static func localSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = descriptor >= 0 && withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && (!listening || listen(descriptor, 8) == 0) && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            if descriptor >= 0 { close(descriptor) }
            throw ClusterError("no free port on 127.0.0.1")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The running postmaster's process id (the first line of `postmaster.pid`).
    package func postmasterPID() throws -> pid_t {
        let text = try String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw ClusterError("no pid in postmaster.pid") }
        return pid
    }

    /// Starts the server again after a crash (crash recovery replays the WAL). The killed postmaster's
    /// `postmaster.pid` and socket lock are removed first: unreaped (a zombie), its pid still looks alive to a new postmaster.
    package func restartAfterCrash() throws {
        for stale in [data.appendingPathComponent("postmaster.pid"), folder.appendingPathComponent(".s.PGSQL.\(port).lock"),
                      folder.appendingPathComponent(".s.PGSQL.\(port)")] {
            try? FileManager.default.removeItem(at: stale)
        }
        try start()
    }

    /// The postmaster and its children (the backends and the server's own processes), by id.
    package func processes() throws -> [pid_t] {
        let postmaster = try postmasterPID()
        let children = (try? String(contentsOfFile: "/proc/\(postmaster)/task/\(postmaster)/children", encoding: .utf8)) ?? ""
        return [postmaster] + children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private func start() throws {
        var options = "-c unix_socket_directories='\(folder.path)' -c port=\(port) -c fsync=off -c max_connections=60"
        options += listening == .socket ? " -c listen_addresses=''" : " -c listen_addresses='127.0.0.1'"
        if listening == .tls {
            options += " -c ssl=on -c ssl_cert_file='\(folder.path)/server.crt' -c ssl_key_file='\(folder.path)/server.key'"
        }
        try run("pg_ctl", ["-D", data.path, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o", options, "start"])
    }

    /// A libpq URL of `database` on the socket, as `user` (the superuser by default).
    package func url(database: String, user: String = PostgresCluster.superuser, password: String? = nil) -> URL {
        let info = password.map { "\(user):\($0)" } ?? user
        return URL(string: "postgresql://\(info)@/\(database)?host=\(folder.path)" + (port == 5432 ? "" : "&port=\(port)"))!
    }

    /// A libpq URL of `database` over TCP to 127.0.0.1 named `host` (`localhost`: the name the certificate holds), with `options` (`sslmode=…`).
    package func tcpURL(database: String, user: String = PostgresCluster.superuser, password: String? = nil, host: String = "localhost",
                        options: String = "") -> URL {
        let info = password.map { "\(user):\($0)" } ?? user
        return URL(string: "postgresql://\(info)@\(host):\(port)/\(database)" + (options.isEmpty ? "" : "?\(options)"))!
    }

    /// A new empty database (each test its own) and its URL.
    package func createDatabase() throws -> URL {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try sql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL as the superuser with psql (set-up only: the code under test has its own client).
    package func sql(_ statement: String, database: String = "postgres") throws {
        _ = try value(statement, database: database)
    }

    /// Runs SQL as the superuser with psql; what it printed (unaligned, tuples only: `1` for `SELECT count(*)` of one row).
    package func value(_ statement: String, database: String = "postgres") throws -> String {
        let result = try ProcessRunner.run(bin.appendingPathComponent("psql"), psqlArguments(database: database) + ["-At", "-c", statement])
        guard result.succeeded else { throw ClusterError("psql failed: \(result.stderrText)") }
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// psql and the arguments that reach `database` as the superuser on the socket (a session a test keeps open: `Process`).
    package var psql: URL { bin.appendingPathComponent("psql") }
    package func psqlArguments(database: String) -> [String] {
        ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder.path, "-p", String(port), "-U", Self.superuser, "-d", database]
    }

    /// Stops the server (immediate: nothing to keep) and removes the folder.
    package func stop() {
        if FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path) {
            try? run("pg_ctl", ["-D", data.path, "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs a server program (as `postgres` when root); its output is the error when it fails.
    private func run(_ tool: String, _ arguments: [String]) throws {
        let program = bin.appendingPathComponent(tool)
        let result = asUser == nil
            ? try ProcessRunner.run(program, arguments)
            : try ProcessRunner.run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", asUser!, "--", program.path] + arguments)
        guard result.succeeded else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw ClusterError("\(tool) failed (status \(result.status)): \(result.stderrText)\(result.stdoutText)\(log)")
        }
    }

    /// Debian's /usr/lib/postgresql/<newest>/bin, else the folder of `initdb` on PATH (Homebrew).
    private static func binFolder() throws -> URL {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb") {
            return URL(fileURLWithPath: "\(root)/\(newest)/bin")
        }
        if let initdb = Toolchain.findInPath("initdb", environment: ProcessInfo.processInfo.environment) { return initdb.deletingLastPathComponent() }
        throw ClusterError("no initdb in /usr/lib/postgresql/*/bin or on PATH: install PostgreSQL's server (Debian: apt-get install postgresql; .ci/run does)")
    }
}

/// Why the throwaway server could not be made.
package struct ClusterError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
