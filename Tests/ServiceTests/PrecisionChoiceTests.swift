import Embedding
import KindredCore
import Testing
@testable import Service

/// `embedder.precision`: auto is int8 where the CPU has AVX-512 VNNI, and a database keeps the
/// precision its vectors were made with.
@Suite struct PrecisionChoiceTests {
    @Test func autoFollowsTheCPUAndASetValueIsTaken() throws {
        #expect(Settings(Config()).embedder.precision == "auto")
        let fast = try PrecisionChoice("auto", int8IsFast: true)
        #expect(fast == PrecisionChoice(precision: .int8, reason: "default: the CPU has AVX-512 VNNI", automatic: true))
        let slow = try PrecisionChoice("auto", int8IsFast: false)
        #expect(slow == PrecisionChoice(precision: .float32, reason: "default: the CPU lacks AVX-512 VNNI", automatic: true))
        for p in Precision.allCases {
            for fast in [true, false] {
                #expect(try PrecisionChoice(p.rawValue, int8IsFast: fast) == PrecisionChoice(precision: p, reason: "set in configuration", automatic: false))
            }
        }
        #expect(throws: ConfigError(key: "embedder.precision", reason: "expected auto, int8 or float32, got 'int4'")) {
            try PrecisionChoice("int4")
        }
    }

    private func semantic(_ service: KindredService, _ text: String) throws -> [String] {
        let hits = try service.call("search/query", ["owner": "me", "text": .string(text), "mode": "semantic", "limit": 3])
        return hits["results"]!.arrayValue!.map { "\($0["id"]!.stringValue!) \($0["score"]!.doubleValue!)" }
    }

    @Test func aDatabaseKeepsThePrecisionItsVectorsWereMadeWith() throws {
        // Written at the precision auto does not choose on this CPU, set in configuration.
        let other: Precision = Precision.int8IsFast ? .float32 : .int8
        var written = Config()
        try written.set("embedder.precision", text: other.rawValue)
        let (first, problem) = EmbedderSetup.make(written)
        let model = try #require(first, "the model must be installed (bash scripts/fetch-model.sh): \(problem ?? "")")
        let f = try ServiceFixture(embedder: model, dimension: 384)
        _ = try f.upsert("me", [
            rec("d1", text: "The doors closed and the train pulled away without me."),
            rec("d2", text: "My grandmother was cooking soup in a kitchen that kept getting bigger."),
            rec("n1", text: "Bought groceries and paid the electricity bill."),
        ])
        #expect(try f.service.embedPending() == 3)
        let version = f.service.indexVersion.description
        let before = try semantic(f.service, "missing a train")

        // Opened with the default: the same version and vectors, nothing to embed, the same answers.
        let (auto, _) = EmbedderSetup.make(Config())
        let reopened = try f.reopen(embedder: auto, dimension: 384)
        defer { reopened.close() }
        let status = try reopened.call("index/status", ["owner": "me"])
        #expect(status["indexVersion"]?.stringValue == version)
        #expect(status["pendingEmbeddings"] == 0 && status["vectors"] == 3 && status["indexed"] == 3)
        #expect(status["embedder"]?["precision"]?.stringValue == other.rawValue)
        #expect(status["embedder"]?["precisionReason"]?.stringValue == "default: the database's vectors were made in \(other.rawValue)")
        #expect(try semantic(reopened, "missing a train") == before)

        // The other precision set in configuration: another version, which index/rebuild builds.
        var moved = Config()
        try moved.set("index.dimension", .int(384))
        try moved.set("embedder.precision", text: other == .int8 ? "float32" : "int8")
        let (setEmbedder, _) = EmbedderSetup.make(moved)
        let switched = try KindredService(config: moved, databasePath: f.path, embedder: setEmbedder)
        defer { switched.close() }
        let asked = try switched.call("index/status", ["owner": "me"])
        #expect(asked["indexVersion"]?.stringValue != version)
        #expect(asked["pendingEmbeddings"] == 3)
        #expect(asked["embedder"]?["precisionReason"]?.stringValue == "set in configuration")
    }

    @Test func anEmptyDatabaseTakesTheCPUsChoice() throws {
        let (auto, _) = EmbedderSetup.make(Config())
        let model = try #require(auto, "the model must be installed (bash scripts/fetch-model.sh)")
        let f = try ServiceFixture(embedder: model, dimension: 384)
        let status = try f.call("index/status", [:])
        #expect(status["embedder"]?["precision"]?.stringValue == (Precision.int8IsFast ? "int8" : "float32"))
        #expect(status["embedder"]?["precisionReason"]?.stringValue
                == (Precision.int8IsFast ? "default: the CPU has AVX-512 VNNI" : "default: the CPU lacks AVX-512 VNNI"))
        #expect(f.service.indexVersion.description == (Precision.int8IsFast ? "all-MiniLM-L6-v2@384;precision=int8" : "all-MiniLM-L6-v2@384"))
    }
}
