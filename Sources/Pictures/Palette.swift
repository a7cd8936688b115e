/// Category colours: the Okabe–Ito palette (distinguishable with the common colour-vision
/// deficiencies), given to categories in name order so a category keeps its colour between pictures
/// of the same categories.
public enum Palette {
    static let colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

    /// Colour of each category in `categories` (any order; duplicates are fine).
    public static func assign(_ categories: [String]) -> [String: String] {
        var out: [String: String] = [:]
        for (i, c) in Set(categories).sorted().enumerated() { out[c] = colours[i % colours.count] }
        return out
    }
}
