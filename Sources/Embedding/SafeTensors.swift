import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read-only view of a `.safetensors` file, memory-mapped.
///
/// Layout: an 8-byte little-endian header length `n`, `n` bytes of JSON mapping each tensor name to
/// `{dtype, shape, data_offsets: [begin, end)}` (offsets relative to the data section that follows),
/// and the data. Everything is validated on open: the header parses, every tensor's byte range lies
/// inside the file and matches its dtype and shape. Pointers handed out stay valid while this value
/// (or a copy of it) is alive.
public struct SafeTensors: @unchecked Sendable {
    /// One tensor's header entry.
    public struct TensorInfo: Sendable, Equatable {
        public let name: String
        public let dtype: String
        public let shape: [Int]
        /// Absolute byte range in the file.
        public let byteRange: Range<Int>
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// Path of the mapped file (used in errors).
    public let path: String
    /// Header entries by tensor name (`__metadata__` excluded).
    public let tensors: [String: TensorInfo]
    /// The `__metadata__` string map, if present.
    public let metadata: [String: String]
    private let mapping: MappedFile

    /// Bytes per element for the dtypes safetensors defines.
    static let dtypeSizes: [String: Int] = [
        "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
        "U16": 2, "U32": 4, "U64": 8, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1,
    ]
    /// Refuse headers larger than this (the format's own limit is 100 MB).
    static let maxHeaderBytes = 100 << 20

    public init(path: String) throws {
        let mapping = try MappedFile(path: path)
        self.path = path
        self.mapping = mapping
        (tensors, metadata) = try Self.parseHeader(mapping.bytes, path: path)
    }

    private static func parseHeader(
        _ file: UnsafeRawBufferPointer, path: String
    ) throws -> ([String: TensorInfo], [String: String]) {
        func fail(_ reason: String, tensor: String? = nil) -> ModelLoadError {
            ModelLoadError(file: path, tensor: tensor, reason: reason)
        }
        guard file.count >= 8 else { throw fail("file is \(file.count) bytes, too short for a header") }
        var length: UInt64 = 0
        for i in 0..<8 { length |= UInt64(file[i]) << (8 * UInt64(i)) }
        guard length >= 2, length <= UInt64(maxHeaderBytes), 8 + Int(length) <= file.count else {
            throw fail("header length \(length) does not fit in a file of \(file.count) bytes")
        }
        let headerLength = Int(length)
        let dataStart = 8 + headerLength
        let dataSize = file.count - dataStart
        let json = Data(file[8..<dataStart])
        guard let root = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw fail("header is not a JSON object")
        }
        var tensors: [String: TensorInfo] = [:]
        var metadata: [String: String] = [:]
        for (name, value) in root {
            if name == "__metadata__" {
                guard let map = value as? [String: Any] else { throw fail("__metadata__ is not an object") }
                for (k, v) in map { if let s = v as? String { metadata[k] = s } }
                continue
            }
            guard let entry = value as? [String: Any],
                  let dtype = entry["dtype"] as? String,
                  let shapeAny = entry["shape"] as? [Any],
                  let offsetsAny = entry["data_offsets"] as? [Any]
            else { throw fail("entry needs dtype, shape and data_offsets", tensor: name) }
            guard let size = dtypeSizes[dtype] else { throw fail("unknown dtype \(dtype)", tensor: name) }
            let shape = shapeAny.compactMap(exactInt)
            guard shape.count == shapeAny.count, shape.allSatisfy({ $0 >= 0 }) else {
                throw fail("shape is not a list of non-negative integers", tensor: name)
            }
            let offsets = offsetsAny.compactMap(exactInt)
            guard offsets.count == 2, offsetsAny.count == 2, offsets[0] >= 0, offsets[0] <= offsets[1] else {
                throw fail("data_offsets must be [begin, end] with 0 <= begin <= end", tensor: name)
            }
            guard offsets[1] <= dataSize else {
                throw fail("data_offsets \(offsets) run past the end of the data (\(dataSize) bytes)", tensor: name)
            }
            var count = 1
            for d in shape {
                let (p, overflow) = count.multipliedReportingOverflow(by: d)
                guard !overflow else { throw fail("shape \(shape) overflows", tensor: name) }
                count = p
            }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, bytes == offsets[1] - offsets[0] else {
                throw fail("shape \(shape) of \(dtype) does not match data_offsets \(offsets)", tensor: name)
            }
            tensors[name] = TensorInfo(
                name: name, dtype: dtype, shape: shape,
                byteRange: (dataStart + offsets[0])..<(dataStart + offsets[1]))
        }
        return (tensors, metadata)
    }

    /// JSON integers arrive as NSNumber; accept only values that are whole numbers.
    private static func exactInt(_ value: Any) -> Int? {
        if let i = value as? Int { return i }
        if let d = value as? Double, d.rounded() == d, abs(d) < 1e15 { return Int(d) }
        return nil
    }

    /// The header entry for `name`, or an error naming the missing tensor.
    public func info(_ name: String) throws -> TensorInfo {
        guard let info = tensors[name] else {
            throw ModelLoadError(file: path, tensor: name, reason: "tensor is missing")
        }
        return info
    }

    /// Pointer to an F32 tensor's data inside the mapping, after checking its shape.
    public func floats(_ name: String, shape expected: [Int]) throws -> UnsafePointer<Float> {
        let info = try info(name)
        guard info.dtype == "F32" else {
            throw ModelLoadError(file: path, tensor: name, reason: "dtype is \(info.dtype), expected F32")
        }
        guard info.shape == expected else {
            throw ModelLoadError(file: path, tensor: name, reason: "shape is \(info.shape), expected \(expected)")
        }
        guard info.byteRange.lowerBound % MemoryLayout<Float>.alignment == 0 else {
            throw ModelLoadError(file: path, tensor: name, reason: "data is not 4-byte aligned")
        }
        let base = mapping.bytes.baseAddress! + info.byteRange.lowerBound
        return base.assumingMemoryBound(to: Float.self)
    }

    /// A copy of an F32 tensor's data, after checking its shape.
    public func floatArray(_ name: String, shape: [Int]) throws -> [Float] {
        let p = try floats(name, shape: shape)
        return Array(UnsafeBufferPointer(start: p, count: shape.reduce(1, *)))
    }
}

/// A whole file mapped read-only; unmapped when the last reference goes.
final class MappedFile: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ModelLoadError(file: path, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw ModelLoadError(file: path, reason: "cannot stat: \(String(cString: strerror(errno)))")
        }
        let size = Int(st.st_size)
        guard size > 0 else { throw ModelLoadError(file: path, reason: "file is empty") }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw ModelLoadError(file: path, reason: "cannot mmap: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}
