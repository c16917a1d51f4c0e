import Foundation
import TestscopeExecution

/// A throwaway PostgreSQL server for the tests (no mock): `initdb` into a temporary folder, `pg_ctl start`
/// listening only on a Unix socket in that folder, stopped and removed by `stop()`. initdb refuses to run
/// as root (CI and this machine are root): then every server command runs as Debian's `postgres` user,
/// which owns the folder. A server that cannot start is an error naming why: the tests fail, never skip.
package final class PostgresCluster {
    package let folder: URL
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

    /// A server of its own (`sharedCluster` for most tests): for a test that stops it.
    package init() throws {
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
            try "local all \(Self.passwordUser) scram-sha-256\nlocal all all trust\n".write(to: data.appendingPathComponent("pg_hba.conf"), atomically: false, encoding: .utf8)
            try start()
            try sql("CREATE ROLE \(Self.passwordUser) LOGIN PASSWORD '\(Self.password)'")
        } catch {
            stop()
            throw error
        }
    }

    private var data: URL { folder.appendingPathComponent("data") }

    /// The running postmaster's process id (the first line of `postmaster.pid`).
    package func postmasterPID() throws -> pid_t {
        let text = try String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw ClusterError("no pid in postmaster.pid") }
        return pid
    }

    /// Starts the server again after a crash (crash recovery replays the WAL). The killed postmaster's
    /// `postmaster.pid` and socket lock are removed first: unreaped (a zombie), its pid still looks alive to a new postmaster.
    package func restartAfterCrash() throws {
        for stale in [data.appendingPathComponent("postmaster.pid"), folder.appendingPathComponent(".s.PGSQL.5432.lock"),
                      folder.appendingPathComponent(".s.PGSQL.5432")] {
            try? FileManager.default.removeItem(at: stale)
        }
        try start()
    }

    private func start() throws {
        try run("pg_ctl", ["-D", data.path, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60",
                           "-o", "-c listen_addresses='' -c unix_socket_directories='\(folder.path)' -c fsync=off -c max_connections=60", "start"])
    }

    /// A libpq URL of `database` on the socket, as `user` (the superuser by default).
    package func url(database: String, user: String = PostgresCluster.superuser, password: String? = nil) -> URL {
        let info = password.map { "\(user):\($0)" } ?? user
        return URL(string: "postgresql://\(info)@/\(database)?host=\(folder.path)")!
    }

    /// A new empty database (each test its own) and its URL.
    package func createDatabase() throws -> URL {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try sql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL as the superuser with psql (set-up only: the code under test has its own client).
    package func sql(_ statement: String, database: String = "postgres") throws {
        let result = try ProcessRunner.run(bin.appendingPathComponent("psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder.path, "-U", Self.superuser,
                                                                                 "-d", database, "-c", statement])
        guard result.succeeded else { throw ClusterError("psql failed: \(result.stderrText)") }
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
