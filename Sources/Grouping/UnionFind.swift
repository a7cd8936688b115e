/// Deterministic union-find over record ids: the root of a set is its smallest id.
struct UnionFind: Sendable, Hashable {
    private var parent: [String: String] = [:]

    func find(_ x: String) -> String {
        var x = x
        while let p = parent[x], p != x { x = p }
        return x
    }

    mutating func union(_ x: String, _ y: String) {
        let rx = find(x), ry = find(y)
        guard rx != ry else { return }
        if rx < ry { parent[ry] = rx } else { parent[rx] = ry }
    }

    func connected(_ x: String, _ y: String) -> Bool { find(x) == find(y) }
}
