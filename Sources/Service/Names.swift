import Foundation

/// Owners, record ids, kinds, categories, tags and metadata keys name things: U+0000 is refused in
/// them (C interfaces end strings there, so `"a\u0000b"` could be taken for `"a"`). Every other
/// character is kept as sent, control characters included: ids come from other systems (file names
/// may hold a newline) and must round-trip. Texts, descriptions, labels, notes and metadata values
/// may hold U+0000; they are stored whole.
/// What a name (owner, id, kind, category, tag, metadata key) may not be. Names are compared byte
/// for byte in SQLite but by canonical equivalence in Swift ("\u{E9}" == "e\u{301}"), so a name in
/// another normalisation form than NFC could be one owner in one place and two in another: such
/// names are refused, and for NFC names the two comparisons agree.
enum Names {
    static func problem(_ s: String) -> String? {
        if s.utf8.contains(0) { return "must not contain U+0000 (NUL)" }
        if !isNFC(s) { return "must be in Unicode normalization form C (NFC)" }
        return nil
    }

    static func isNFC(_ s: String) -> Bool {
        // ASCII is always NFC; only other text needs the normalisation.
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return s.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(s.unicodeScalars)
    }
}
