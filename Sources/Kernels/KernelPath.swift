/// Which implementation of a kernel runs: the fastest the CPU allows (chosen at run time), or the
/// plain C reference it is checked against. Both give the same bits.
public enum KernelPath: Sendable { case dispatched, reference }
