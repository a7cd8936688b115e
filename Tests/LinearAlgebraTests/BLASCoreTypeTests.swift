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
}
