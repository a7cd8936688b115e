#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting the program again with more environment variables set, for a library that reads the
/// environment only when it loads (OpenBLAS: `BLASCoreType.startEnvironment`).
public enum Reexec {
    /// Set on the second start, so that the program never starts itself in a loop.
    static let marker = "KINDRED_BLAS_REEXEC"

    /// The value of the environment variable `name`, or nil when it is unset.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets `variables` (computed only on the first start) and replaces the process with the same
    /// program and arguments (`/proc/self/exe`). Returns when there is nothing to set, on the second
    /// start, or when `execv` fails: the program then runs with the environment it has. Call first
    /// thing in `main`, before any thread starts.
    public static func once(setting variables: () -> [(name: String, value: String)]) {
        guard environment(marker) == nil else { return }
        let missing = variables()
        guard !missing.isEmpty else { return }
        for (name, value) in missing { setenv(name, value, 1) }
        setenv(marker, "1", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }
}
