/// English function words that never make a keyword and never start or end a key phrase; every
/// word of scikit-learn's English stop list is one of them.
/// (Kept in Grouping until a shared list exists lower down.)
enum Stopwords {
    static let english: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "almost", "also", "am", "an", "and", "any", "are",
        "aren't", "around", "as", "at", "away", "back", "be", "because", "been", "before", "being", "below", "between",
        "both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did", "didn't", "do", "does", "doesn't",
        "doing", "don't", "down", "during", "each", "even", "ever", "every", "few", "for", "from", "further", "get",
        "gets", "got", "had", "hadn't", "has", "hasn't", "have", "haven't", "having", "he", "he'd", "he'll", "he's",
        "her", "here", "here's", "hers", "herself", "him", "himself", "his", "how", "how's", "i", "i'd", "i'll", "i'm",
        "i've", "if", "in", "into", "is", "isn't", "it", "it's", "its", "itself", "just", "kept", "keep", "let's",
        "like", "me", "more", "most", "much", "must", "my", "myself", "never", "no", "nor", "not", "now", "of", "off",
        "on", "once", "one", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "quite",
        "rather", "really", "same", "she", "she'd", "she'll", "she's", "should", "shouldn't", "so", "some", "still",
        "such", "than", "that", "that's", "the", "their", "theirs", "them", "themselves", "then", "there", "there's",
        "these", "they", "they'd", "they'll", "they're", "they've", "thing", "things", "this", "those", "though",
        "through", "to", "too", "under", "until", "up", "upon", "us", "very", "was", "wasn't", "we", "we'd", "we'll",
        "we're", "we've", "went", "were", "weren't", "what", "what's", "when", "when's", "where", "where's", "which",
        "while", "who", "who's", "whom", "why", "why's", "will", "with", "won't", "would", "wouldn't", "yet", "you",
        "you'd", "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves", "was", "s", "t", "d", "ll",
        "m", "re", "ve", "something", "someone", "anything", "everything", "nothing", "maybe", "again", "two",
        "three", "lot", "lots", "way", "made", "make", "going", "gone", "came", "come", "said", "says", "say",
        "without", "within", "across", "along", "among", "onto", "toward", "towards", "since", "unless", "whether",
        "another", "else", "ago", "instead", "whole",
        // scikit-learn's English stop list (the Glasgow list) where the lines above miss it, a few of its words
        // (fire, bill, call, system…) more content than function, but a list readers know; and "second", "seven", "goes".
        "afterwards", "alone", "already", "although", "always", "amongst", "amoungst", "amount", "anyhow", "anyone",
        "anyway", "anywhere", "became", "become", "becomes", "becoming", "beforehand", "behind", "beside",
        "besides", "beyond", "bill", "bottom", "call", "cant", "co", "con", "couldnt", "cry", "de", "describe",
        "detail", "done", "due", "eg", "eight", "either", "eleven", "elsewhere", "empty", "enough", "etc",
        "everyone", "everywhere", "except", "fifteen", "fifty", "fill", "find", "fire", "first", "five", "former",
        "formerly", "forty", "found", "four", "front", "full", "give", "go", "hasnt", "hence", "hereafter",
        "hereby", "herein", "hereupon", "however", "hundred", "ie", "inc", "indeed", "interest", "last", "latter",
        "latterly", "least", "less", "ltd", "many", "may", "meanwhile", "might", "mill", "mine", "moreover",
        "mostly", "move", "name", "namely", "neither", "nevertheless", "next", "nine", "nobody", "none", "noone",
        "nowhere", "often", "others", "otherwise", "part", "per", "perhaps", "please", "put", "see", "seem",
        "seemed", "seeming", "seems", "serious", "several", "show", "side", "sincere", "six", "sixty", "somehow",
        "sometime", "sometimes", "somewhere", "system", "take", "ten", "thence", "thereafter", "thereby",
        "therefore", "therein", "thereupon", "thick", "thin", "third", "throughout", "thru", "thus", "together",
        "top", "twelve", "twenty", "un", "via", "well", "whatever", "whence", "whenever", "whereafter", "whereas",
        "whereby", "wherein", "whereupon", "wherever", "whither", "whoever", "whose", "second", "seven", "goes",
    ]

    static func contains(_ word: String) -> Bool { english.contains(word) }
}
