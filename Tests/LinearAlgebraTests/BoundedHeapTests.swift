import Testing
import LinearAlgebra

/// The bounded heap keeps exactly what sorting everything and taking the first `k` keeps.
@Suite struct BoundedHeapTests {
    struct Hit: BestFirst, Equatable {
        var id: Int
        var score: Int
        static func better(_ a: Hit, _ b: Hit) -> Bool { a.score > b.score || (a.score == b.score && a.id < b.id) }
    }

    @Test(arguments: [0, 1, 3, 10, 200])
    func keepsTheKBestOfASortedReference(k: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(k)
        var hits: [Hit] = []
        for id in 0..<150 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            hits.append(Hit(id: id, score: Int(state >> 59)))  // 32 scores: many ties
        }
        var heap = BoundedHeap<Hit>(k: k)
        for h in hits { heap.offer(h) }
        let reference = Array(hits.sorted(by: Hit.better).prefix(k))
        #expect(heap.sorted() == reference)
        #expect(heap.isFull == (hits.count >= k))
        #expect(heap.worst == reference.last)
    }
}
