import Grouping

/// One page of findings in their report order: `limit` of them from `offset` (all when `limit` is nil),
/// and where the next page starts, if there is one.
struct FindingsPage {
    var items: ArraySlice<Finding>
    var nextOffset: Int?

    init(_ all: [Finding], offset: Int, limit: Int?) {
        let start = min(offset, all.count)
        let end = limit.map { min(all.count, start + $0) } ?? all.count
        items = all[start..<end]
        nextOffset = end < all.count ? end : nil
    }
}
