public import KindredCore
public import JSONRPC

/// One tool as a client sees it in `tools/list`, and the code that answers `tools/call` for it.
public struct Tool: Sendable {
    public var name: String
    public var title: String
    /// Written for the model that picks tools: what the tool is for and what its numbers mean.
    public var description: String
    /// JSON Schema of `arguments` (an object schema).
    public var inputSchema: JSONValue
    /// JSON Schema of `structuredContent` (an object schema).
    public var outputSchema: JSONValue
    /// True when the tool only reads: such calls run side by side; the others one at a time, in order.
    public var readOnly: Bool
    public var run: @Sendable (_ arguments: JSONObject, _ context: RequestContext) -> ToolResult

    public init(name: String, title: String, description: String, inputSchema: JSONValue, outputSchema: JSONValue,
                readOnly: Bool, run: @escaping @Sendable (JSONObject, RequestContext) -> ToolResult) {
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.readOnly = readOnly
        self.run = run
    }

    /// The `tools/list` entry.
    var listing: JSONValue {
        [
            "name": .string(name), "title": .string(title), "description": .string(description),
            "inputSchema": inputSchema, "outputSchema": outputSchema,
            "annotations": ["title": .string(title), "readOnlyHint": .bool(readOnly), "destructiveHint": false,
                            "openWorldHint": false],
        ]
    }
}

/// What a tool call gives back. A failure the model can act on (a bad argument, an unknown id) is a
/// result with `isError`, so the model sees it and can correct the call; only protocol faults
/// (unknown tool, malformed request) are JSON-RPC errors.
public enum ToolResult: Sendable, Equatable {
    /// The structured content, matching the tool's output schema.
    case success(JSONValue)
    /// What went wrong in plain words, with details (the field at fault) when there are any.
    case failure(message: String, details: JSONValue?)

    /// The `CallToolResult` (without the 2026-07-28 `resultType`, which the server adds).
    var json: JSONValue {
        switch self {
        case .success(let value):
            // The same object as text too, for clients that show only content blocks.
            return ["content": [["type": "text", "text": .string(JSONWriter.string(value))]], "structuredContent": value, "isError": false]
        case .failure(let message, let details):
            var text = message
            if let details { text += "\n" + JSONWriter.string(details) }
            return ["content": [["type": "text", "text": .string(text)]], "isError": true]
        }
    }
}
