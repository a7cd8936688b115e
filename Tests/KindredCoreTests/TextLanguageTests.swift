import Testing
@testable import KindredCore

@Suite struct TextLanguageTests {
    @Test(arguments: [
        ("I kept missing the train and it was late again.", "en"),
        ("Ich habe den Zug wieder verpasst, und er war zu spät.", "de"),
        ("J'ai encore raté le train et il était en retard.", "fr"),
        ("Perdí el tren otra vez y llegó tarde a la estación.", "es"),
        ("Ho perso di nuovo il treno e non era in orario.", "it"),
        ("昨日はリアルタイム戦略ゲームを遅くまで遊んだ。", "ja"),
        ("东京的电车总是很拥挤。", "zh"),
        ("나는 기차를 또 놓쳤다.", "ko"),
        ("ฉันพลาดรถไฟอีกแล้ว", "th"),
    ])
    func detectsTheLanguageOfASentence(text: String, code: String) {
        #expect(TextLanguage.detect(text)?.rawValue == code)
    }

    @Test func saysNothingWithoutEvidence() {
        #expect(TextLanguage.detect("") == nil)
        #expect(TextLanguage.detect("Verzeichnisinhalte auflisten") == nil)
        #expect(TextLanguage.detect("12 345, 678") == nil)
    }

    /// Among the owner's languages only: a German stopword in an English owner's query decides nothing.
    @Test func choosesAmongTheCandidatesOnly() {
        #expect(TextLanguage.detect("die hard", among: [.english]) == nil)
        #expect(TextLanguage.detect("die hard") == .german)
        #expect(TextLanguage.detect("el tren de la noche", among: [.english, .spanish]) == .spanish)
        #expect(TextLanguage.detect("東京", among: [.japanese]) == .japanese)
    }

    @Test func onlyTheLanguagesWithAStemmerAreStemmed() {
        #expect(!TextLanguage.english.isStemmed)
        #expect(TextLanguage.german.isStemmed && TextLanguage.french.isStemmed && TextLanguage.spanish.isStemmed)
        #expect(!TextLanguage.japanese.isStemmed)
    }

    @Test func bigramTokensHoldEveryCharacterAndPair() {
        #expect(BigramScript.tokens(Array("東京都".unicodeScalars)) == ["東", "東京", "京", "京都", "都"])
        #expect(BigramScript.queryTerms(Array("東京都".unicodeScalars)) == ["東京", "京都"])
        #expect(BigramScript.queryTerms(Array("京".unicodeScalars)) == ["京"])
        #expect(BigramScript.of("ー") == .kana && BigramScript.of("a") == nil && BigramScript.of("한") == .hangul)
    }
}

@Suite struct MultilingualTermsTests {
    @Test func runsWithoutSpacesGiveTheirPairs() {
        #expect(KeywordTerms(query: "リアルタイム戦略ゲーム").terms == ["リア", "アル", "ルタ", "タイ", "イム", "ム戦", "戦略", "略ゲ", "ゲー", "ーム"])
        // Latin letters beside the run are a word of their own.
        #expect(KeywordTerms(query: "Linuxカーネル").terms == ["linux", "カー", "ーネ", "ネル"])
        #expect(KeywordTerms(query: "京").terms == ["京"])
    }

    @Test func stopwordsAreTheQueryLanguages() {
        #expect(KeywordTerms(query: "der Zug und die Nacht", language: .german).terms == ["zug", "nacht"])
        #expect(KeywordTerms(query: "le train de la nuit", language: .french).terms == ["train", "nuit"])
        #expect(KeywordTerms(query: "the train of the night").terms == ["train", "night"])
        // Without a language, English's list as before.
        #expect(KeywordTerms(query: "der Zug").terms == ["der", "zug"])
    }

    @Test func highlightsAndPassagesFindPairsInsideARun() {
        let text = "今日は雨だった。昨日はリアルタイム戦略ゲームを遅くまで遊んだ！楽しかった？"
        let terms = KeywordTerms(query: "戦略ゲーム").terms
        let passage = Passages.best(in: text, matching: terms, maxScalars: 25)
        #expect(passage.text == "昨日はリアルタイム戦略ゲームを遅くまで遊んだ！")
        let whole = Passage(start: 0, end: text.unicodeScalars.count, text: text)
        let h = Highlight.best(in: whole, terms: terms)
        #expect(h.text == "昨日はリアルタイム戦略ゲームを遅くまで遊んだ！")
        #expect(h.start == 8 && h.end == 31)
        #expect(TermCoverage.share(of: terms, in: text) == 1)
    }

    @Test func fullWidthMarksEndSentences() {
        let s = Passages.sentences(Array("雨！本当？「はい。」次".unicodeScalars))
        #expect(s == [0..<2, 2..<5, 5..<10, 10..<11])
    }
}
