internal import CStemmer
import Synchronization

/// One Snowball stemmer per stemmed language, made on first use and kept; calls are serialised per
/// stemmer (libstemmer's are not thread-safe).
public final class Snowball: @unchecked Sendable {
    private let stemmer: OpaquePointer
    private let lock = Mutex<Void>(())

    private init?(algorithm: String) {
        guard let s = sb_stemmer_new(algorithm, "UTF_8") else { return nil }
        stemmer = s
    }

    deinit { sb_stemmer_delete(stemmer) }

    /// libstemmer's algorithm names of the stemmed languages.
    static let algorithms: [TextLanguage: String] = [
        .german: "german", .french: "french", .spanish: "spanish", .italian: "italian", .portuguese: "portuguese", .dutch: "dutch",
    ]

    private static let made = Mutex<[TextLanguage: Snowball]>([:])

    /// The stemmer of `language`, or nil when libstemmer has none for it.
    public static func stemmer(for language: TextLanguage) -> Snowball? {
        guard let algorithm = algorithms[language] else { return nil }
        return made.withLock { m in
            if let s = m[language] { return s }
            let s = Snowball(algorithm: algorithm)
            m[language] = s
            return s
        }
    }

    /// The stem of a lowercase word (the word itself when the stemmer fails).
    public func stem(_ word: String) -> String {
        var w = word
        return lock.withLock { _ in
            w.withUTF8 { bytes -> String in
                guard let base = bytes.baseAddress, bytes.count < 1 << 20 else { return word }
                let capacity = bytes.count + 64
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { out -> String in
                    let n = kindred_stem(stemmer, base, Int32(bytes.count), out.baseAddress, Int32(capacity))
                    guard n >= 0 else { return word }
                    return String(decoding: UnsafeBufferPointer(rebasing: out[..<Int(n)]), as: UTF8.self)
                }
            }
        }
    }
}
