import Grouping
import KindredCore
import JSONRPC
import LinearAlgebra
import Pictures
import KindredProtocol

/// `patterns/map`: the owner's groups (those reported as findings, related ones included) placed by
/// PCA of their centroids, drawn as SVG.
extension KindredService {
    func patternMap(_ req: PatternsMap, _ ctx: RequestContext) throws(ResponseError) -> PatternsMap.Result {
        let query = try req.query()
        let data = try pictureData(owner: req.owner, query: query, withVectors: true, ctx)
        let occurrences = data.patterns.occurrences
        // Centroid: the mean of the unit vectors of the group's eligible members.
        var findings: [Finding] = []
        var points = Matrix(rows: 0, cols: indexVersion.dimension)
        for f in data.report.findings {
            guard let g = data.patterns.state.groups[f.groupID] else { continue }
            var sum = [Double](repeating: 0, count: indexVersion.dimension)
            var n = 0
            for id in g.memberIDs.sorted() {
                guard let v = occurrences[id]?.vector, v.count == sum.count else { continue }
                for j in 0..<v.count { sum[j] += Double(v[j]) }
                n += 1
            }
            guard n > 0 else { continue }
            points.appendRow(sum.map { Float($0 / Double(n)) })
            findings.append(f)
        }
        try ctx.checkCancelled()
        // Themes: the groups of a theme are drawn together (`MapThemes.swift`).
        let themed = try mapThemes(owner: req.owner, groups: findings.map(\.groupID), data: data)
        let projection: PCA.Projection
        do { projection = try PCA.project(points, components: 2) } catch {
            throw ResponseError.internalError("the principal components could not be computed (\(error))")
        }
        var marks: [PatternMap.Mark] = []
        for (i, f) in findings.enumerated() {
            // A group's records are all of one kind (the engine never puts two kinds together).
            let kind = data.patterns.state.groups[f.groupID]?.memberIDs.lazy.compactMap { occurrences[$0]?.recordKind }.first ?? ""
            marks.append(PatternMap.Mark(
                id: f.groupID, label: SVGText.shorten(PictureData.label(f), max: 28), detail: PictureData.detail(f),
                category: f.category, kind: kind, records: f.fraction.count,
                x: Double(projection.coordinates[i, 0]), y: Double(projection.coordinates[i, 1])))
        }
        marks = Self.gather(marks, themed)
        let share = projection.variances.map { projection.totalVariance > 0 ? Double($0 / projection.totalVariance) : 0 }
        // Without an extractor every group is of one category: colour then tells the kinds apart.
        let colouring: PatternMap.Colouring = Set(marks.map(\.category)).count <= 1 ? .kind : .category
        let subtitle = "\(marks.count) group\(marks.count == 1 ? "" : "s") over \(data.report.denominator) eligible records "
            + "(\(PictureData.describe(query.period))), each circle the entries that tell one situation, placed by what they say: "
            + "closer circles are more alike; up, down, left and right mean nothing of their own."
        let (svg, drawn) = PatternMap.render(marks, title: "Pattern map", subtitle: subtitle, themes: themed, colouring: colouring)
        let byID = Dictionary(uniqueKeysWithValues: drawn.map { ($0.id, $0) })
        return PatternsMap.Result(
            svg: svg, eligibleRecords: data.report.denominator, explainedVariance: share.map { ($0 * 1000).rounded() / 1000 },
            groups: marks.map { m in
                PatternsMap.Result.Circle(
                    groupId: Int(m.id), label: m.label, category: m.category, kind: m.kind, records: m.records,
                    x: (m.x * 10_000).rounded() / 10_000, y: (m.y * 10_000).rounded() / 10_000, labelBeside: byID[m.id]?.labelBeside ?? false,
                    themeId: themed.first { $0.groups.contains(m.id) }.map { Int($0.id) })
            },
            themes: themed.map { .init(themeId: Int($0.id), label: $0.label, groups: $0.groups.map { Int($0) }) })
    }
}
