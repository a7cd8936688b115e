public import KindredProtocol
import KindredCore
public import JSONRPC

/// The MCP protocol revisions this server speaks, and the wire names of the 2026-07-28 request
/// envelope (as the `mcp` SDK's `mcp_types` spells them).
public enum ProtocolVersions {
    /// Revisions reached through the `initialize` handshake, oldest first.
    public static let handshake = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    /// Revisions where every request carries its own envelope in `_meta` (no handshake).
    public static let modern = ["2026-07-28"]

    /// The handshake answer to a client's proposal: the same revision when it is one of ours,
    /// else our newest handshake revision (the client then decides whether it can speak it).
    public static func negotiate(_ requested: String) -> String {
        handshake.contains(requested) ? requested : handshake[handshake.count - 1]
    }

    public static let protocolVersionKey = "io.modelcontextprotocol/protocolVersion"
    public static let clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    public static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    public static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
}

extension ErrorCode {
    /// 2026-07-28: the request's protocol version is not served here (`data: {supported, requested}`).
    public static let unsupportedProtocolVersion = ErrorCode(rawValue: -32022)
}

extension ResponseError {
    static func unsupportedVersion(_ requested: JSONValue?) -> ResponseError {
        var data: JSONObject = ["supported": .from(ProtocolVersions.modern)]
        if let requested { data["requested"] = requested }
        return ResponseError(code: .unsupportedProtocolVersion,
                             message: "unsupported protocol version: this server speaks \(ProtocolVersions.modern.joined(separator: ", ")) "
                                + "with a per-request envelope, or \(ProtocolVersions.handshake.joined(separator: ", ")) after initialize",
                             data: .object(data))
    }
}
