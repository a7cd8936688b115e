/// A model folder that cannot be used: a missing or malformed file, or a tensor that disagrees with
/// `config.json`. `tensor` names the offending tensor when there is one.
public struct ModelLoadError: Error, CustomStringConvertible, Sendable {
    /// Path of the file at fault.
    public let file: String
    /// Name of the tensor at fault, if the problem is a tensor.
    public let tensor: String?
    /// What is wrong, in words.
    public let reason: String

    public init(file: String, tensor: String? = nil, reason: String) {
        self.file = file
        self.tensor = tensor
        self.reason = reason
    }

    public var description: String {
        if let tensor { return "\(file): tensor '\(tensor)': \(reason)" }
        return "\(file): \(reason)"
    }
}
