import Testing
@testable import Grouping
import KindredTestSupport

/// The engine's binary search against a linear scan over ascending arrays with repeats, gaps and
/// values outside them.
@Suite struct SortedPositionTests {
    @Test(arguments: [0, 1, 2, 7, 64])
    func agreesWithALinearScan(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) &+ 1)
        let xs = (0..<count).map { _ in Int64(rng.next() % 40) }.sorted()
        for x in Int64(-2)...42 {
            #expect(xs.insertionPoint(of: x) == (xs.firstIndex { $0 >= x } ?? xs.count), "\(x) in \(xs)")
            #expect(xs.firstPosition(above: x) == (xs.firstIndex { $0 > x } ?? xs.count), "\(x) in \(xs)")
            #expect(xs.sortedPosition(of: x) == xs.firstIndex(of: x), "\(x) in \(xs)")
            #expect(SortedPosition.first(in: xs.count) { xs[$0] * 2 > x } == (xs.firstIndex { $0 * 2 > x } ?? xs.count))
        }
    }
}
