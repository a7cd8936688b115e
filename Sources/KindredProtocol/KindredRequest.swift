/// A request of the Kindred protocol as a value: its params are the properties (wire names, absent
/// when nil), `spec` is its catalogue entry, and `Result` the shape of its answer. `kindred serve`
/// reads these params and KindredKit sends them; the method's name lives only in `spec`, which reads
/// everything else from the type (`MethodSpec.init(_:for:)`).
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
    }

    public var method: String
    public var params: [Param]
    public var result: [String]

    /// The entry of `method`, answered by `R`: the params are the fields `R` decodes, in the order it
    /// decodes them (declaration order for a synthesized `Decodable`), required when not optional
    /// or when `@Nullable` (sent even when null); the result fields are those of `R.Result`.
    public init<R: KindredRequest>(_ method: String, for _: R.Type) {
        self.method = method
        params = Shape.fields(of: R.self).map { Param(name: $0.name, required: $0.required || $0.nullable) }
        result = Shape.fieldNames(of: R.Result.self)
    }

    /// Every key of the params object (besides `workDoneToken`, which every method accepts).
    public var keys: [String] { params.map(\.name) }
    public var requiredKeys: [String] { params.filter(\.required).map(\.name) }
}
