/// The `cursor` of a page of findings or themes: a letter of the method's own (`f`, `t`) and the
/// position of the next item in decimal digits.
struct PageCursor: Sendable {
    let prefix: Character

    static let findings = PageCursor(prefix: "f")
    static let themes = PageCursor(prefix: "t")

    func string(_ offset: Int) -> String { "\(prefix)\(offset)" }

    func offset(_ cursor: String) -> Int? {
        guard cursor.first == prefix, cursor.count <= 12, let n = Int(cursor.dropFirst()), n >= 0, String(n) == cursor.dropFirst() else { return nil }
        return n
    }
}
