import Dispatch
import Synchronization

/// The texts of documents edited in the editor and not saved (`textDocument/didChange`): what is
/// indexed for those files instead of the file on disk, once no change came for `delay` seconds.
/// The files themselves are never written.
final class OpenBuffers: Sendable {
    private struct State {
        var texts: [String: String] = [:]
        /// Each path's latest change: a timer fires only for the change it was set for.
        var generation: [String: Int] = [:]
    }
    private let state = Mutex(State())
    let delay: Double

    init(delay: Double) { self.delay = delay }

    /// The unsaved text of `path`, if the editor changed it since it was opened or saved.
    func text(_ path: String) -> String? { state.withLock { $0.texts[path] } }

    /// Keeps `text` as `path`'s and calls `quiet` once no other change of it came for `delay` seconds.
    func changed(_ path: String, text: String, quiet: @escaping @Sendable () -> Void) {
        let generation = state.withLock { s -> Int in
            s.texts[path] = text
            s.generation[path, default: 0] += 1
            return s.generation[path]!
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            if state.withLock({ $0.generation[path] == generation }) { quiet() }
        }
    }

    /// Forgets `path`'s unsaved text (saved, or closed without saving: the file is what counts) and
    /// any change waiting; true when there was one.
    @discardableResult
    func forget(_ path: String) -> Bool {
        state.withLock { s in
            s.generation[path, default: 0] += 1
            return s.texts.removeValue(forKey: path) != nil
        }
    }
}
