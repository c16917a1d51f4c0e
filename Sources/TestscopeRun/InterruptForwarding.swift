import Foundation
import TestscopeExecution

/// Ctrl-C and `kill` for the test processes too: each runs in a process group of its own (so that a
/// timeout kills what it started), which takes it out of the terminal's foreground group. On SIGINT
/// or SIGTERM the running groups are killed, then Testscope ends by the same signal as before.
final class InterruptForwarding: Sendable {
    static let shared = InterruptForwarding()

    private let groups = Locked<Set<Int32>>([])
    private let sources = Locked<[DispatchSourceSignal]>([])

    func add(group: Int32) {
        installOnce()
        groups.withLock { _ = $0.insert(group) }
    }

    func remove(group: Int32) {
        groups.withLock { _ = $0.remove(group) }
    }

    private func installOnce() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for signo in [SIGINT, SIGTERM] {
                // A dispatch source sees the signal only once its default action is off.
                signal(signo, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
                source.setEventHandler { [groups] in
                    for group in groups.withLock({ $0 }) { ProcessTree.killGroupAndDescendants(leader: group) }
                    signal(signo, SIG_DFL)
                    raise(signo)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
