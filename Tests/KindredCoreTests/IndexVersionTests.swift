import Testing
@testable import KindredCore

@Suite struct IndexVersionTests {
    @Test func aPlainVersionIsModelAtDimension() {
        #expect(IndexVersion(model: "all-MiniLM-L6-v2", dimension: 384).description == "all-MiniLM-L6-v2@384")
    }

    @Test func theDocumentsFormIsPartOfTheVersion() {
        let typed = IndexVersion(model: "multilingual-e5-small", dimension: 384, documentInputType: "passage")
        #expect(typed.description == "multilingual-e5-small@384;document-type=passage")
        let prefixed = IndexVersion(model: "e5-small-v2", dimension: 384, forms: EmbeddingForms(queryPrefix: "query: ", documentPrefix: "passage: "))
        #expect(prefixed.description == #"e5-small-v2@384;document-prefix="passage: ""#)
        // The query's form is not: query vectors are never stored.
        #expect(prefixed == IndexVersion(model: "e5-small-v2", dimension: 384, documentPrefix: "passage: "))
        #expect(prefixed != IndexVersion(model: "e5-small-v2", dimension: 384))
    }

    @Test func aLocalModelsPrecisionOtherThanFloat32IsPartOfTheVersion() {
        let int8 = IndexVersion(model: "all-MiniLM-L6-v2", dimension: 384, precision: "int8")
        #expect(int8.description == "all-MiniLM-L6-v2@384;precision=int8")
        #expect(int8 != IndexVersion(model: "all-MiniLM-L6-v2", dimension: 384))
        let both = IndexVersion(model: "e5", dimension: 0, forms: EmbeddingForms(documentPrefix: "passage: "), precision: "int8")
        #expect(both.settled(dimension: 384).description == #"e5@384;precision=int8;document-prefix="passage: ""#)
        #expect(both.dimension(ofStored: "e5@384;precision=int8") == 384)
    }

    @Test func anUnknownDimensionShowsAsAQuestionMarkAndSettlesOnce() {
        let v = IndexVersion(model: "m", dimension: 0, documentInputType: "passage")
        #expect(!v.isSettled && v.description == "m@?;document-type=passage")
        #expect(v.settled(dimension: 768).description == "m@768;document-type=passage")
    }

    @Test func theDimensionOfAStoredVersionOfTheSameModel() {
        let v = IndexVersion(model: "e5", dimension: 0, documentPrefix: "passage: ")
        #expect(v.dimension(ofStored: #"e5@768;document-prefix="passage: ""#) == 768)
        // Another form of the same model has the same size.
        #expect(v.dimension(ofStored: "e5@768") == 768)
        #expect(v.dimension(ofStored: "e5@768;document-type=passage") == 768)
        #expect(v.dimension(ofStored: "e5@768x") == nil)
        #expect(v.dimension(ofStored: #"e5@;document-prefix="passage: ""#) == nil)
        #expect(v.dimension(ofStored: #"e5@07;document-prefix="passage: ""#) == nil)
        #expect(IndexVersion(model: "e5", dimension: 0).dimension(ofStored: "e5@384") == 384)
        #expect(IndexVersion(model: "e5", dimension: 0).dimension(ofStored: "e5-large@384") == nil)
    }

    @Test func formsPrepareTextsByRole() {
        let f = EmbeddingForms(queryPrefix: "q: ", documentPrefix: "", queryInputType: "", documentInputType: "doc")
        #expect(f.prepare(["a"], as: .query) == ["q: a"] && f.prepare(["a"], as: .document) == ["a"])
        #expect(f.inputType(.query) == nil && f.inputType(.document) == "doc")
    }
}
