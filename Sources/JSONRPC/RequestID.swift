public import KindredCore

/// A request id as the client sent it: a string, a number or null. A number is kept with its source
/// digits, so `12345678901234567890123`, `1.0`, `-0` and `1e3` are echoed exactly as sent and never
/// rounded through a double; `"1"` and `1` are different ids, and so are `1` and `1.0`.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The id as a value (a number that does not fit Int64 is its nearest double here).
    public let value: JSONValue
    /// The number's source text, when writing `value` would not reproduce it.
    public let numberText: String?

    public init(_ value: JSONValue, numberText: String? = nil) {
        self.value = value
        switch value {
        case .int, .double: self.numberText = numberText
        default: self.numberText = nil
        }
    }

    public static let null = RequestID(.null)

    /// Appends the id's JSON to `out`, verbatim for numbers.
    public func write(to out: inout [UInt8]) {
        if let numberText { out.append(contentsOf: numberText.utf8) } else { JSONWriter.write(value, to: &out) }
    }

    public var description: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
