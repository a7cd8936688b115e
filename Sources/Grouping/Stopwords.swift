import KindredCore

/// The words that never make a keyword, never start or end a key phrase and are never a group's
/// shared element: the stop list keyword search drops from queries (`KindredCore.Stopwords`, the
/// one list), and on top of it the words a reader takes as saying nothing of what recurs —
/// every word of scikit-learn's English stop list (the Glasgow list, a few of its words, such as
/// fire, bill, call and system, more content than function, but a list readers know), contractions
/// as written, and journal filler ("something", "maybe", "went", "thing", "kept", …).
enum Stopwords {
    static let english: Set<String> = KindredCore.Stopwords.english.union(namingNothing)

    /// What labels and shared elements leave out beyond the query stop list.
    static let namingNothing: Set<String> = [
        "almost", "aren't", "around", "away", "back", "can't", "cannot", "couldn't", "didn't", "doesn't", "don't",
        "even", "get", "gets", "got", "hadn't", "hasn't", "haven't", "he'd", "he'll", "he's", "here's", "how's",
        "i'd", "i'll", "i'm", "i've", "isn't", "it's", "kept", "keep", "let's", "like", "much", "never", "one",
        "quite", "rather", "really", "she'd", "she'll", "she's", "shouldn't", "still", "that's", "there's", "they'd",
        "they'll", "they're", "they've", "thing", "things", "though", "wasn't", "we'd", "we'll", "we're", "we've",
        "went", "weren't", "what's", "when's", "where's", "who's", "why's", "won't", "wouldn't", "yet", "you'd",
        "you'll", "you're", "you've", "something", "someone", "anything", "everything", "nothing", "maybe", "two",
        "three", "lot", "lots", "way", "made", "make", "going", "gone", "came", "come", "said", "says", "say",
        "without", "within", "across", "along", "among", "onto", "toward", "towards", "since", "unless", "whether",
        "another", "ago", "instead", "whole", "second", "seven", "goes", "afterwards", "alone", "already", "although",
        "always", "amongst", "amoungst", "amount", "anyhow", "anyone", "anyway", "anywhere", "became", "become",
        "becomes", "becoming", "beforehand", "behind", "beside", "besides", "beyond", "bill", "bottom", "call", "co",
        "con", "cry", "de", "describe", "detail", "done", "due", "eg", "eight", "either", "eleven", "elsewhere",
        "empty", "enough", "etc", "everyone", "everywhere", "except", "fifteen", "fifty", "fill", "find", "fire",
        "first", "five", "former", "formerly", "forty", "found", "four", "front", "full", "give", "go", "hasnt",
        "hence", "hereafter", "hereby", "herein", "hereupon", "however", "hundred", "ie", "inc", "indeed", "interest",
        "last", "latter", "latterly", "least", "less", "ltd", "many", "may", "meanwhile", "mill", "mine", "moreover",
        "mostly", "move", "name", "namely", "neither", "nevertheless", "next", "nine", "nobody", "none", "noone",
        "nowhere", "often", "others", "otherwise", "part", "per", "perhaps", "please", "put", "see", "seem", "seemed",
        "seeming", "seems", "serious", "several", "show", "side", "sincere", "six", "sixty", "somehow", "sometime",
        "sometimes", "somewhere", "system", "take", "ten", "thence", "thereafter", "thereby", "therefore", "therein",
        "thereupon", "thick", "thin", "third", "throughout", "thru", "thus", "together", "top", "twelve", "twenty",
        "un", "via", "well", "whatever", "whence", "whenever", "whereafter", "whereas", "whereby", "wherein",
        "whereupon", "wherever", "whither", "whoever",
    ]

    static func contains(_ word: String) -> Bool { english.contains(word) }

    /// The words that name nothing in a text written in `language`: the English list above for
    /// English, and for a text whose language is not known (or has no list, as a script without
    /// spaces); otherwise that language's own stop list (`KindredCore.Stopwords.list(for:)`) alone,
    /// since an English stopword can be a word of its own there (German "See", the lake).
    static func list(for language: TextLanguage?) -> Set<String> {
        guard let language, language != .english, let own = KindredCore.Stopwords.list(for: language) else { return english }
        return own
    }
}
