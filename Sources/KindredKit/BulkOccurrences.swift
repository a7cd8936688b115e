/// `occurrences/put` with `items`: many records' occurrences in one call (one embedder batch, one
/// transaction). A record that is missing or not at the given revision gets an `error` in its own
/// result; the others are written.
public struct PutOccurrenceItems: KindredRequest {
    public static let method = "occurrences/put"
    public struct Item: Encodable, Sendable, Hashable {
        public var recordId: String
        public var revision: Int
        public var occurrences: [OccurrenceInput]
        public init(recordId: String, revision: Int, occurrences: [OccurrenceInput]) {
            self.recordId = recordId; self.revision = revision; self.occurrences = occurrences
        }
    }
    public struct Result: Decodable, Sendable, Hashable {
        public struct ItemError: Decodable, Sendable, Hashable { public var code: Int; public var message: String; public var data: KindredJSON? }
        public struct ItemResult: Decodable, Sendable, Hashable {
            public var recordId: String
            public var revision: Int?
            public var accepted: Int?
            public var occurrences: [PutOccurrences.Result.Accepted]?
            public var rejected: [PutOccurrences.Result.Rejected]?
            public var vectors: String?
            /// Set when this item was not written.
            public var error: ItemError?
        }
        public var written: Int
        public var failed: Int
        public var accepted: Int
        public var vectors: String
        public var items: [ItemResult]
    }
    public var owner: String
    public var items: [Item]
    public init(owner: String, items: [Item]) { self.owner = owner; self.items = items }
}
