/// Field reads that do not copy the whole occurrence out of the dictionary (a copy retains every
/// string and array it holds, which dominated placement time at 100 000 occurrences).
extension Dictionary where Key == Int64, Value == Occurrence {
    @inline(__always)
    func has(_ id: Int64) -> Bool { index(forKey: id) != nil }

    @inline(__always)
    func vectorOf(_ id: Int64) -> [Float]? {
        guard let i = index(forKey: id) else { return nil }
        return values[i].vector
    }

    @inline(__always)
    func recordOf(_ id: Int64) -> String? {
        guard let i = index(forKey: id) else { return nil }
        return values[i].recordID
    }

    @inline(__always)
    func tagsOf(_ id: Int64) -> [String]? {
        guard let i = index(forKey: id) else { return nil }
        return values[i].tags
    }

    @inline(__always)
    func scopeOf(_ id: Int64) -> Scope? {
        guard let i = index(forKey: id) else { return nil }
        return Scope(owner: values[i].owner, category: values[i].category)
    }
}
