#if canImport(Glibc)
import Glibc
#endif

/// OpenBLAS reads its settings from the environment when the library loads. Its kernels: Debian's
/// OpenBLAS 0.3.21 does not recognise some newer CPUs (virtualised Xeons report a generic model) and
/// falls back to its oldest, slowest kernels ("Prescott"), 2.5–4× slower on the model's shapes. When
/// `OPENBLAS_CORETYPE` is not set, Kindred chooses from the CPU flags: SkylakeX on AVX-512 (F, BW,
/// DQ, VL), Haswell on AVX2 + FMA. Its idle workers' busy wait: see `threadTimeout`.
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

    /// How long (2^n CPU cycles) an idle OpenBLAS worker thread busy-waits for the next product
    /// before it sleeps. OpenBLAS's default, 2^28 cycles (about a tenth of a second), keeps its
    /// workers spinning on the cores right after each product, beside the embedder's own threads
    /// (attention, GELU, LayerNorm) and the search scan; 2^16 (some tens of microseconds) still
    /// covers products that follow each other at once.
    public static let threadTimeout = "16"

    /// The OpenBLAS variables to set before the library loads, for those the environment leaves
    /// unset: `OPENBLAS_CORETYPE` from the CPU flags (when this CPU has a better choice) and
    /// `OPENBLAS_THREAD_TIMEOUT`. OpenBLAS reads them only when it loads, so the programs set them
    /// and start again (`Reexec` in KindredCLI).
    public static func startEnvironment(cpuFlags: Set<String>, current: (String) -> String?) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        if current("OPENBLAS_CORETYPE") == nil, let core = preferred(cpuFlags: cpuFlags) { out.append(("OPENBLAS_CORETYPE", core)) }
        if current("OPENBLAS_THREAD_TIMEOUT") == nil { out.append(("OPENBLAS_THREAD_TIMEOUT", threadTimeout)) }
        return out
    }
}
