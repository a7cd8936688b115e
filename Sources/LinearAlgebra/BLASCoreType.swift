#if canImport(Glibc)
import Glibc
#endif

/// OpenBLAS picks its kernels when the library loads. Debian's OpenBLAS 0.3.21 does not recognise some
/// newer CPUs (virtualised Xeons report a generic model) and falls back to its oldest, slowest kernels
/// ("Prescott"), 2.5–4× slower on the model's shapes. When `OPENBLAS_CORETYPE` is not set, Kindred
/// chooses from the CPU flags: SkylakeX on AVX-512 (F, BW, DQ, VL), Haswell on AVX2 + FMA.
public enum BLASCoreType {
    /// The core type to request for this CPU, or nil to leave OpenBLAS's own choice.
    public static func preferred(cpuFlags: Set<String>) -> String? {
        if cpuFlags.isSuperset(of: ["avx512f", "avx512bw", "avx512dq", "avx512vl"]) { return "SkylakeX" }
        if cpuFlags.isSuperset(of: ["avx2", "fma"]) { return "Haswell" }
        return nil
    }

    /// Flags of the first CPU in /proc/cpuinfo (empty elsewhere).
    public static func cpuFlags() -> Set<String> {
        guard let f = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(f) }
        var line: UnsafeMutablePointer<CChar>?
        var cap = 0
        defer { free(line) }
        while getline(&line, &cap, f) > 0 {
            guard let line else { break }
            let s = String(cString: line)
            if s.hasPrefix("flags") {
                return Set(s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == ":" }).map(String.init))
            }
        }
        return []
    }

    /// Re-executes the current process with `OPENBLAS_CORETYPE` set when it is unset and this CPU has
    /// a better choice. Call first thing in `main`; returns only when no re-exec happened.
    public static func reexecIfNeeded() {
        guard getenv("OPENBLAS_CORETYPE") == nil, getenv("KINDRED_BLAS_REEXEC") == nil,
              let core = preferred(cpuFlags: cpuFlags()) else { return }
        setenv("OPENBLAS_CORETYPE", core, 1)
        setenv("KINDRED_BLAS_REEXEC", "1", 1)  // never loop
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // execv returned: keep running with OpenBLAS's own choice.
    }
}
