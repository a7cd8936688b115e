#if canImport(Glibc)
import Glibc
#endif

/// C copies of Swift strings that live as long as this value (for C structs that hold `const char *`).
final class CStrings {
    private(set) var pointers: [UnsafeMutablePointer<CChar>?] = []
    init() {}
    deinit { for p in pointers { free(p) } }

    func copy(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)
        pointers.append(p)
        return UnsafePointer(p!)
    }

    /// A C array of C strings (`const char **`), freed with this value.
    func array(_ strings: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let a = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(1, strings.count))
        for (i, s) in strings.enumerated() { a[i] = copy(s) }
        arrays.append(a)
        return a
    }
    private var arrays: [UnsafeMutablePointer<UnsafePointer<CChar>?>] = []
    func releaseArrays() { for a in arrays { a.deallocate() }; arrays = [] }
}
