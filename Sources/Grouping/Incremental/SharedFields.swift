/// Copy-on-write storage for a value type's fields: copies of the value share one box, so reading
/// a value out of a large dictionary costs one reference count, not one per string and array field.
/// `Group` keeps its fields in one (`Occurrence`, immutable, in a box of `let` fields).
final class SharedFields<Fields>: @unchecked Sendable {
    /// Read in place through the box; written only while the box is uniquely referenced
    /// (`SharedFields.unique`), so no two values ever see each other's writes.
    var fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    /// `box` itself when no other value shares it, else a fresh copy put in its place.
    static func unique(_ box: inout SharedFields) -> SharedFields {
        if !isKnownUniquelyReferenced(&box) { box = SharedFields(box.fields) }
        return box
    }
}
