/// What decoding needs from the configuration.
struct ParamRules: Sendable {
    var dimension: Int
    var defaultLimit: Int
    var maxLimit: Int

    /// `workDoneToken` is accepted by every method (the server reads it; methods that report
    /// progress use it).
    static let everywhere = ["workDoneToken"]
}
