internal import CKernels

/// A 64-bit running checksum of bytes (`kindred_checksum`); not cryptographic: it detects a torn or
/// truncated file.
public enum Checksum {
    /// The checksum of `count` bytes at `p`, continuing from `seed` (0 to start).
    public static func update(_ seed: UInt64, _ p: UnsafeRawPointer, count: Int) -> UInt64 {
        kindred_checksum(p, count, seed)
    }
}
