/// English words too common to say what a query is about. Keyword search drops them from the query
/// (they are still indexed, so nothing needs re-indexing when the list changes). Lowercase; the
/// pieces that apostrophes leave behind ("don't" → "don", "t") are listed too.
public enum Stopwords {
    public static func contains(_ lowercasedWord: String) -> Bool { english.contains(lowercasedWord) }

    public static let english: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
        "can", "could", "did", "do", "does", "doing", "down", "during", "each", "else", "ever", "every",
        "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
        "me", "might", "more", "most", "must", "my", "myself", "no", "nor", "not", "now",
        "of", "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own",
        "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
        "under", "until", "up", "upon", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while",
        "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
        // Contractions, split at the apostrophe or written without it.
        "s", "t", "d", "ll", "m", "re", "ve", "o", "y",
        "ain", "aren", "couldn", "didn", "doesn", "don", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
        "needn", "shan", "shouldn", "wasn", "weren", "wouldn",
        "cant", "couldnt", "didnt", "doesnt", "dont", "im", "isnt", "ive", "shouldnt", "wasnt", "wouldnt", "youre",
    ]
}
