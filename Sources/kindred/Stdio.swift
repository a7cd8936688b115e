import Foundation
import JSONRPC
import KindredCLI

/// What `serve`, `serve --cluster` and `mcp` share about their stdio stream.
enum Stdio {
    /// `--framing auto|lsp|ndjson` (nil: detected from the first byte).
    static func framing(_ args: Arguments) throws -> Framing? {
        switch args.value("framing") ?? "auto" {
        case "auto": return nil
        case "lsp": return .lsp
        case "ndjson": return .ndjson
        case let other: throw Arguments.UsageError(description: "--framing must be auto, lsp or ndjson, got '\(other)'")
        }
    }

    /// A reader of standard input for `Server.run`: the next bytes read, nil at the end.
    static func reader() -> () -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        return {
            while true {
                let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n > 0 { return Array(buffer[0..<n]) }
                if n < 0 && errno == EINTR { continue }
                return nil
            }
        }
    }
}
