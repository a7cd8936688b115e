import Foundation

/// BERT "uncased" normalisation and pre-tokenisation, scalar by scalar, as the HuggingFace
/// tokenizers library does it (`BertNormalizer` + `BertPreTokenizer`):
///
/// 1. drop U+0000, U+FFFD and control/format/private-use scalars (keeping tab, LF, CR); map every
///    White_Space scalar to a space;
/// 2. put spaces around CJK ideographs;
/// 3. canonical decomposition (NFD) and removal of non-spacing marks (Mn) — before lowercasing;
/// 4. full Unicode lowercase mapping, scalar by scalar (no NFKC: fullwidth letters stay);
/// 5. split on whitespace, and make every punctuation scalar (ASCII punctuation or Unicode P*) a word
///    of its own. Symbols (S*) are not split.
///
/// Works on `Unicode.Scalar`s throughout: `String`/`Character` comparison applies canonical
/// equivalence and grapheme clustering, which the reference tokenizer does not.
enum BertPreTokenizer {
    /// The words of `text`, each as its scalars.
    static func words(_ text: String) -> [[Unicode.Scalar]] {
        var cleaned = String.UnicodeScalarView()
        var allASCII = true
        for s in text.unicodeScalars {
            allASCII = allASCII && s.isASCII
            if s.value == 0 || s.value == 0xFFFD || isControl(s) { continue }
            if isWhitespace(s) {
                cleaned.append(" ")
            } else if isCJK(s) {
                cleaned.append(" ")
                cleaned.append(s)
                cleaned.append(" ")
            } else {
                cleaned.append(s)
            }
        }
        // ASCII is unchanged by NFD; skip the Foundation call for it.
        let decomposed = allASCII ? String(cleaned) : String(cleaned).decomposedStringWithCanonicalMapping

        var words: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        func flush() {
            if !current.isEmpty { words.append(current); current.removeAll(keepingCapacity: true) }
        }
        for s in decomposed.unicodeScalars {
            // No scalar below U+0300 is a non-spacing mark.
            if s.value >= 0x300, s.properties.generalCategory == .nonspacingMark { continue }
            for lower in lowercase(s) {
                if isWhitespace(lower) {
                    flush()
                } else if isPunctuation(lower) {
                    flush()
                    words.append([lower])
                } else {
                    current.append(lower)
                }
            }
        }
        flush()
        return words
    }

    /// Full lowercase mapping of one scalar, without context (no final-sigma rule).
    @inline(__always)
    static func lowercase(_ s: Unicode.Scalar) -> String.UnicodeScalarView {
        if s.isASCII {
            var v = String.UnicodeScalarView()
            v.append(s.value >= 65 && s.value <= 90 ? Unicode.Scalar(UInt8(s.value + 32)) : s)
            return v
        }
        if !s.properties.changesWhenLowercased {
            var v = String.UnicodeScalarView()
            v.append(s)
            return v
        }
        return s.properties.lowercaseMapping.unicodeScalars
    }

    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x20, 0x09, 0x0A, 0x0D: return true
        case 0..<0x80: return false
        default: return s.properties.isWhitespace
        }
    }

    /// Cc, Cf, Cs, Co except tab, LF and CR. Unassigned (Cn) scalars are kept.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09, 0x0A, 0x0D: return false
        case 0x20..<0x7F: return false
        default:
            switch s.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse: return true
            default: return false
            }
        }
    }

    static func isPunctuation(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) {
            return true
        }
        if v < 0x80 { return false }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    static func isCJK(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F,
             0x2B740...0x2B81F, 0x2B920...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
