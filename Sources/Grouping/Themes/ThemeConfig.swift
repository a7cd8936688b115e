/// Thresholds of the theme rule. Each similarity threshold is a place between the category's
/// background level b (the level in force, `PatternState.levels`; `fallbackBackground` when the
/// category has none yet) and 1: τ = b + f · (1 − b), compared with the mean cosine between two
/// groups' examples (`ThemeEngine.swift`). Placed so, the same fractions serve MiniLM's short texts
/// (b ≈ 0.1–0.25) and e5 or a journal in one voice (b ≈ 0.3–0.85), as the groups' thresholds do.
public struct ThemeConfig: Sendable, Hashable, Codable {
    /// A group joins a theme only if its examples are at least this similar (mean cosine) to the
    /// representative group's examples …
    public var repFraction: Float
    /// … and on average to the theme's supporting examples (other groups).
    public var supFraction: Float
    /// Two groups found a theme when they are this similar (pairwise, for every group of the seed).
    public var seedFraction: Float
    /// A join needs its best theme to beat the runner-up by this much (quantised score), else the
    /// group stays without a theme.
    public var delta: Float
    /// Supporting example groups per theme (the representative included).
    public var examples: Int
    /// Occurrences per group that a group is compared by: its medoid, its exemplars, then its
    /// other members, at most this many (0: every member, the group's mean).
    public var groupExamples: Int
    /// Background used for a category too small to measure.
    public var fallbackBackground: Float
    /// Join and seed passes per scope (each until nothing changes).
    public var maxPasses: Int
    /// Off: no themes are made (existing ones are kept as they are).
    public var enabled: Bool
    /// Compare groups by their means with the category's mean taken out (cosine of the centred
    /// means; the fractions are then the thresholds themselves) instead of by the mean cosine
    /// placed against the background level.
    public var centred: Bool

    public init(repFraction: Float = 0.15, supFraction: Float = 0.12, seedFraction: Float = 0.22, delta: Float = 0.0,
                examples: Int = 4, groupExamples: Int = 0, fallbackBackground: Float = 0.22, maxPasses: Int = 16, enabled: Bool = true, centred: Bool = false) {
        self.repFraction = repFraction
        self.supFraction = supFraction
        self.seedFraction = seedFraction
        self.delta = delta
        self.examples = examples
        self.groupExamples = groupExamples
        self.fallbackBackground = fallbackBackground
        self.maxPasses = maxPasses
        self.enabled = enabled
        self.centred = centred
    }

    /// The thresholds at background `level` (hundredths; nil: `fallbackBackground`).
    func thresholds(level: Int?) -> (rep: Float, sup: Float, seed: Float) {
        let b = level.map { Float($0) / 100 } ?? fallbackBackground
        func at(_ f: Float) -> Float { b + f * (1 - b) }
        return (at(repFraction), at(supFraction), at(seedFraction))
    }
}
