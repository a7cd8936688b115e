/// A request of the Kindred protocol as a value: its params are the properties (wire names, absent
/// when nil), `spec` is its catalogue entry, and `Result` the shape of its answer. `kindred serve`
/// reads these params and KindredKit sends them; the method's name lives only in `spec`.
public protocol KindredRequest: Codable, Sendable {
    associatedtype Result: Codable & Sendable
    static var spec: MethodSpec { get }
}

extension KindredRequest {
    /// The JSON-RPC method (`records/upsert`).
    public static var method: String { spec.method }
}

/// One method of the protocol: its name, the keys of its params object, each required or not, in
/// the order an error lists them, and the fields its result may hold (besides `usage`, which the
/// answer of any work that called a remote provider carries). A key marked optional may still be required together with
/// others (`search/query` needs `text` or `vector`); docs/methods.md says how.
public struct MethodSpec: Sendable, Hashable {
    public struct Param: Sendable, Hashable {
        public var name: String
        public var required: Bool

        public static func required(_ name: String) -> Param { Param(name: name, required: true) }
        public static func optional(_ name: String) -> Param { Param(name: name, required: false) }
    }

    public var method: String
    public var params: [Param]
    public var result: [String]

    public init(_ method: String, _ params: [Param], result: [String]) {
        self.method = method
        self.params = params
        self.result = result
    }

    /// Every key of the params object (besides `workDoneToken`, which every method accepts).
    public var keys: [String] { params.map(\.name) }
    public var requiredKeys: [String] { params.filter(\.required).map(\.name) }
}
