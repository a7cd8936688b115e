import KindredCore
import KindredProtocol

/// One MCP tool as a service method: its name and description for the model, and the JSON Schemas
/// of its arguments and of its structured result, generated from the method's request type and its
/// `Result` (field notes included), so a key, a type or a description is written once.
struct MCPToolSpec: Sendable {
    var name, title, description: String
    /// The service method it calls (the owner is added by the server).
    var method: String
    /// The JSON Schemas of the arguments and of the structured result.
    var input, output: JSONValue
    /// When set, the arguments go into this params key (`correction` of `patterns/correct`).
    var wrap: String?
    /// Notes of the request and result types that name no field of theirs (tests keep it empty).
    var strayNotes: [String]

    /// `omit`: params of the method the tool does not take (besides `owner`, which the server fills);
    /// `require`: optional params the tool requires (search without `vector` needs `text`);
    /// `wrap`: the params key whose object the arguments are.
    init<R: KindredRequest>(name: String, title: String, description: String, request: R.Type,
                            omit: [String] = [], require: [String] = [], wrap: String? = nil) {
        self.name = name
        self.title = title
        self.description = description
        self.method = R.method
        self.wrap = wrap
        let params = Self.read(R.self)
        let arguments = wrap.flatMap { params.shape.field($0) } ?? params.shape
        input = JSONSchema.of(arguments.dropping(["owner"] + omit).requiring(require), for: .arguments)
        let result = Self.read(R.Result.self)
        output = JSONSchema.of(result.shape, for: .answer)
        strayNotes = params.strays + result.strays
    }

    /// A type's shape; `.any` (an empty schema, which tests catch) when the type cannot be read.
    private static func read<T: Decodable>(_ type: T.Type) -> (shape: Shape, strays: [String]) {
        (try? Shape.of(type)) ?? (.any, ["\(T.self)"])
    }

    func params(_ arguments: JSONObject) -> JSONObject {
        guard let wrap else { return arguments }
        return [wrap: .object(arguments)]
    }

    /// The argument a params field of the method is (`correction.moveOut` → `moveOut`).
    func argument(_ field: String) -> String {
        guard let wrap, field.hasPrefix(wrap + ".") else { return field }
        return String(field.dropFirst(wrap.count + 1))
    }

    var argumentNames: [String] { input["properties"]?.objectValue.map { o in Array(o.makeIterator()).map(\.key) } ?? [] }
}
