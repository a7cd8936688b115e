/// An axis-aligned box in picture coordinates.
struct Box: Equatable {
    var x: Double, y: Double, width: Double, height: Double

    func overlaps(_ o: Box, margin: Double = 1) -> Bool {
        x < o.x + o.width + margin && o.x < x + width + margin && y < o.y + o.height + margin && o.y < y + height + margin
    }

    func inside(_ o: Box) -> Bool { x >= o.x && y >= o.y && x + width <= o.x + o.width && y + height <= o.y + o.height }

    /// Whether the circle at (cx, cy) with radius r touches the box.
    func touches(cx: Double, cy: Double, r: Double) -> Bool {
        let nx = min(max(cx, x), x + width), ny = min(max(cy, y), y + height)
        return (nx - cx) * (nx - cx) + (ny - cy) * (ny - cy) < r * r
    }
}

/// Places one text label beside each circle so that no two labels overlap and no label covers a
/// circle: the largest circles choose first, each trying positions around itself at growing
/// distances (with a leader line once it is away from the circle). A label that finds no free place
/// is not placed; the caller lists it in a key instead.
struct LabelPlacer {
    struct Circle { var x: Double, y: Double, r: Double }
    struct Placed: Equatable {
        var box: Box
        /// Text position (`text-anchor` start) and baseline.
        var textX: Double, baseline: Double
        /// Whether a line should join the label to its circle.
        var leader: Bool
    }

    let area: Box
    let fontSize: Double

    /// `labels[i]` belongs to `circles[i]`; `order` is the order of choice. Returns one placement
    /// (or nil) per label.
    func place(_ labels: [String], circles: [Circle], order: [Int]) -> [Placed?] {
        var taken: [Box] = []
        var out = [Placed?](repeating: nil, count: labels.count)
        let h = fontSize * 1.25
        for i in order {
            let c = circles[i]
            let w = SVGText.width(labels[i], size: fontSize)
            var found: Placed?
            search: for ring in 0..<5 {
                let gap = 3 + Double(ring) * (h + 2)
                let d = c.r + gap
                // right, left, above, below, then the four diagonals.
                let candidates: [(Double, Double)] = [
                    (c.x + d, c.y - h / 2), (c.x - d - w, c.y - h / 2),
                    (c.x - w / 2, c.y - d - h), (c.x - w / 2, c.y + d),
                    (c.x + d * 0.7, c.y - d * 0.7 - h), (c.x - d * 0.7 - w, c.y - d * 0.7 - h),
                    (c.x + d * 0.7, c.y + d * 0.7), (c.x - d * 0.7 - w, c.y + d * 0.7),
                ]
                for (bx, by) in candidates {
                    let box = Box(x: bx, y: by, width: w, height: h)
                    guard box.inside(area), !taken.contains(where: { $0.overlaps(box) }),
                          !circles.contains(where: { box.touches(cx: $0.x, cy: $0.y, r: $0.r + 1) })
                    else { continue }
                    found = Placed(box: box, textX: bx, baseline: by + h * 0.78, leader: ring > 0)
                    break search
                }
            }
            if let found {
                taken.append(found.box)
                out[i] = found
            }
        }
        return out
    }
}
