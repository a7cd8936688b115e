/// Anything that turns texts into unit vectors (the in-process model, a remote provider, a test double).
public protocol TextEmbedder: Sendable {
    var modelID: String { get }
    var dimension: Int { get }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]]
}
