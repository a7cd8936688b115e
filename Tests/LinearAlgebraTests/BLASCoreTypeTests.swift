import Testing
@testable import LinearAlgebra

@Suite struct BLASCoreTypeTests {
    @Test func choosesKernelsFromCPUFlags() {
        #expect(BLASCoreType.preferred(cpuFlags: ["avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"]) == "SkylakeX")
        #expect(BLASCoreType.preferred(cpuFlags: ["avx2", "fma", "avx512f"]) == "Haswell")
        #expect(BLASCoreType.preferred(cpuFlags: ["sse3", "avx"]) == nil)
    }

    @Test func readsThisMachinesFlags() {
        // Every x86-64 CPU reports at least these.
        let flags = BLASCoreType.cpuFlags()
        #expect(flags.contains("sse2"))
        #expect(flags.contains("fpu"))
    }

    @Test func setsOnlyTheVariablesTheEnvironmentLeavesUnset() {
        let avx512: Set<String> = ["avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"]
        let fresh = BLASCoreType.startEnvironment(cpuFlags: avx512) { _ in nil }
        #expect(fresh.map(\.name) == ["OPENBLAS_CORETYPE", "OPENBLAS_THREAD_TIMEOUT"])
        #expect(fresh.map(\.value) == ["SkylakeX", BLASCoreType.threadTimeout])
        let user = ["OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_THREAD_TIMEOUT": "20"]
        #expect(BLASCoreType.startEnvironment(cpuFlags: avx512) { user[$0] }.isEmpty)
        // No better kernels for this CPU: only the timeout.
        #expect(BLASCoreType.startEnvironment(cpuFlags: ["sse3"]) { _ in nil }.map(\.name) == ["OPENBLAS_THREAD_TIMEOUT"])
    }
}
