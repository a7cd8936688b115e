/// SentencePiece's compiled normalisation rules (`precompiled_charsmap`, e.g. XLM-R's "nmt_nfkc"),
/// applied as HuggingFace tokenizers' `Precompiled` normaliser does.
///
/// Layout: a little-endian u32 byte count of the trie, the trie (darts-clone double array of u32
/// units, keyed by UTF-8 bytes, each value an offset), then the replacements as NUL-terminated UTF-8.
struct PrecompiledCharsmap: Sendable {
    private let units: [UInt32]
    private let replacements: [UInt8]

    init(_ blob: [UInt8]) throws(CharsmapError) {
        guard blob.count >= 4 else { throw CharsmapError(reason: "shorter than its 4-byte header") }
        let size = Int(blob[0]) | Int(blob[1]) << 8 | Int(blob[2]) << 16 | Int(blob[3]) << 24
        guard size % 4 == 0, size >= 4, 4 + size <= blob.count else {
            throw CharsmapError(reason: "trie of \(size) bytes does not fit in \(blob.count)")
        }
        units = stride(from: 4, to: 4 + size, by: 4).map {
            UInt32(blob[$0]) | UInt32(blob[$0 + 1]) << 8 | UInt32(blob[$0 + 2]) << 16 | UInt32(blob[$0 + 3]) << 24
        }
        replacements = Array(blob[(4 + size)...])
    }

    struct CharsmapError: Error, CustomStringConvertible {
        let reason: String
        var description: String { "precompiled_charsmap: \(reason)" }
    }

    /// Normalises `text`: each grapheme cluster of under 6 UTF-8 bytes is looked up whole; otherwise
    /// (or when it has no rule) each of its scalars is looked up alone and kept when it has none.
    func normalize(_ text: String) -> String {
        var out = String()
        out.reserveCapacity(text.utf8.count)
        for grapheme in text {
            let bytes = Array(grapheme.utf8)
            if bytes.count < 6, let replaced = transform(bytes[...]) {
                out += replaced
                continue
            }
            for scalar in grapheme.unicodeScalars {
                let one = Array(String(scalar).utf8)
                if let replaced = transform(one[...]) {
                    out += replaced
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// The replacement of the shortest rule that `key` starts with (as the reference takes the first
    /// of the common-prefix matches), or nil.
    private func transform(_ key: ArraySlice<UInt8>) -> String? {
        guard let offset = firstPrefixValue(key), offset < replacements.count else { return nil }
        var end = offset
        while end < replacements.count, replacements[end] != 0 { end += 1 }
        return String(decoding: replacements[offset..<end], as: UTF8.self)
    }

    private func firstPrefixValue(_ key: ArraySlice<UInt8>) -> Int? {
        func offset(_ unit: UInt32) -> Int { Int((unit >> 10) << ((unit & (1 << 9)) >> 6)) }
        guard let root = units.first else { return nil }
        var position = offset(root)
        for byte in key {
            if byte == 0 { return nil }
            position ^= Int(byte)
            guard position < units.count else { return nil }
            let unit = units[position]
            if unit & ((1 << 31) | 0xFF) != UInt32(byte) { return nil }
            position ^= offset(unit)
            guard position < units.count else { return nil }
            if (unit >> 8) & 1 == 1 { return Int(units[position] & ((1 << 31) - 1)) }
        }
        return nil
    }
}
