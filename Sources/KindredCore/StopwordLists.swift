/// Stopwords of the other languages keyword search stems (after the Snowball project's lists,
/// shortened to the words that carry no topic). Lowercase, with their accents; pieces that
/// apostrophes leave ("l'", "qu'") are listed as the letters before them.
extension Stopwords {
    /// The list of `language`, or nil for a language without one (scripts without spaces).
    public static func list(for language: TextLanguage) -> Set<String>? {
        switch language {
        case .english: english
        case .german: german
        case .french: french
        case .spanish: spanish
        case .italian: italian
        case .portuguese: portuguese
        case .dutch: dutch
        default: nil
        }
    }

    /// Whether `lowercasedWord` is a stopword of `language` (English's list for a language without one).
    public static func contains(_ lowercasedWord: String, in language: TextLanguage) -> Bool {
        (list(for: language) ?? english).contains(lowercasedWord)
    }

    public static let german: Set<String> = [
        "aber", "alle", "allem", "allen", "aller", "alles", "als", "also", "am", "an", "ander", "andere", "anderem", "anderen",
        "anderer", "anderes", "auch", "auf", "aus", "bei", "bin", "bis", "bist", "da", "damit", "dann", "das", "dass", "daß",
        "dein", "deine", "dem", "den", "denn", "der", "des", "dessen", "dich", "die", "dies", "diese", "diesem", "diesen",
        "dieser", "dieses", "dir", "doch", "dort", "du", "durch", "ein", "eine", "einem", "einen", "einer", "eines", "er",
        "es", "euch", "euer", "eure", "für", "gegen", "hab", "habe", "haben", "hat", "hatte", "hatten", "hier", "hin",
        "hinter", "ich", "ihm", "ihn", "ihr", "ihre", "ihrem", "ihren", "ihrer", "ihres", "im", "in", "indem", "ins", "ist",
        "jede", "jedem", "jeden", "jeder", "jedes", "jetzt", "kann", "kein", "keine", "keinem", "keinen", "keiner", "können",
        "könnte", "man", "manche", "mein", "meine", "meinem", "meinen", "meiner", "mich", "mir", "mit", "muss", "musste",
        "nach", "nicht", "nichts", "noch", "nun", "nur", "ob", "oder", "ohne", "sehr", "sein", "seine", "seinem", "seinen",
        "seiner", "sich", "sie", "sind", "so", "solche", "soll", "sollte", "sondern", "sonst", "über", "um", "und", "uns",
        "unser", "unter", "viel", "vom", "von", "vor", "während", "war", "waren", "warst", "was", "weil", "welche", "welchem",
        "welchen", "welcher", "welches", "wenn", "werde", "werden", "wie", "wieder", "will", "wir", "wird", "wirst", "wo",
        "wollen", "wollte", "würde", "würden", "zu", "zum", "zur", "zwar", "zwischen",
    ]

    public static let french: Set<String> = [
        "au", "aux", "avec", "ce", "ces", "cette", "dans", "de", "des", "du", "elle", "elles", "en", "et", "eux", "il", "ils",
        "je", "la", "le", "les", "leur", "leurs", "lui", "ma", "mais", "me", "même", "mes", "moi", "mon", "ne", "nos",
        "notre", "nous", "on", "ou", "où", "par", "pas", "pour", "qu", "que", "qui", "sa", "se", "ses", "son", "sur", "ta",
        "te", "tes", "toi", "ton", "tu", "un", "une", "vos", "votre", "vous", "c", "d", "j", "l", "à", "m", "n", "s", "t",
        "y", "été", "être", "est", "sont", "suis", "es", "sommes", "êtes", "était", "étaient", "ai", "as", "avons", "avez",
        "ont", "avait", "avaient", "eu", "fait", "si", "sans", "sous", "entre", "plus", "moins", "tout", "tous", "toute",
        "toutes", "aussi", "comme", "donc", "alors", "ainsi", "peut", "peuvent", "lorsque", "quand", "dont", "lequel",
        "laquelle", "lesquels", "celui", "celle", "ceux", "cela", "ceci", "ça", "car", "puis", "ni", "soit", "sera", "seront",
    ]

    public static let spanish: Set<String> = [
        "de", "la", "que", "el", "en", "y", "a", "los", "del", "se", "las", "por", "un", "para", "con", "no", "una", "su",
        "al", "lo", "como", "más", "pero", "sus", "le", "ya", "o", "este", "sí", "porque", "esta", "entre", "cuando", "muy",
        "sin", "sobre", "también", "me", "hasta", "hay", "donde", "quien", "desde", "todo", "nos", "durante", "todos", "uno",
        "les", "ni", "contra", "otros", "ese", "eso", "ante", "ellos", "e", "esto", "mí", "antes", "algunos", "qué", "unos",
        "yo", "otro", "otras", "otra", "él", "tanto", "esa", "estos", "mucho", "quienes", "nada", "muchos", "cual", "poco",
        "ella", "estar", "estas", "algunas", "algo", "nosotros", "mi", "mis", "tú", "te", "ti", "tu", "tus", "ellas",
        "vosotros", "os", "mío", "mía", "es", "son", "era", "eran", "fue", "fueron", "ser", "sea", "sean", "ha", "han", "he",
        "has", "había", "habían", "haber", "está", "están", "estaba", "puede", "pueden", "si", "cada", "cuál", "cómo",
        "dónde", "cuyo", "cuya", "mediante", "según", "tras", "u",
    ]

    public static let italian: Set<String> = [
        "ad", "al", "allo", "ai", "agli", "all", "alla", "alle", "con", "col", "da", "dal", "dallo", "dai", "dagli", "dall",
        "dalla", "dalle", "di", "del", "dello", "dei", "degli", "dell", "della", "delle", "in", "nel", "nello", "nei", "negli",
        "nell", "nella", "nelle", "su", "sul", "sullo", "sui", "sugli", "sull", "sulla", "sulle", "per", "tra", "contro",
        "io", "tu", "lui", "lei", "noi", "voi", "loro", "mio", "mia", "miei", "mie", "tuo", "tua", "suo", "sua", "suoi",
        "sue", "nostro", "nostra", "vostro", "vostra", "mi", "ti", "ci", "vi", "lo", "la", "li", "le", "gli", "ne", "il",
        "un", "uno", "una", "ma", "ed", "se", "perché", "anche", "come", "dov", "dove", "che", "chi", "cui", "non", "più",
        "quale", "quanto", "quello", "quella", "questo", "questa", "si", "tutto", "tutti", "a", "c", "e", "i", "l", "o",
        "è", "sono", "era", "erano", "essere", "ho", "ha", "hanno", "avere", "aveva", "stato", "stata", "può", "possono",
    ]

    public static let portuguese: Set<String> = [
        "de", "a", "o", "que", "e", "do", "da", "em", "um", "para", "com", "não", "uma", "os", "no", "se", "na", "por",
        "mais", "as", "dos", "como", "mas", "ao", "ele", "das", "à", "seu", "sua", "ou", "quando", "muito", "nos", "já",
        "eu", "também", "só", "pelo", "pela", "até", "isso", "ela", "entre", "depois", "sem", "mesmo", "aos", "seus", "quem",
        "nas", "me", "esse", "eles", "você", "essa", "num", "nem", "suas", "meu", "às", "minha", "numa", "pelos", "elas",
        "qual", "nós", "lhe", "deles", "essas", "esses", "pelas", "este", "dele", "tu", "te", "vocês", "vos", "lhes",
        "meus", "minhas", "teu", "tua", "nosso", "nossa", "dela", "delas", "esta", "estes", "estas", "aquele", "aquela",
        "isto", "aquilo", "é", "são", "foi", "foram", "ser", "era", "eram", "está", "estão", "estar", "tem", "têm", "ter",
        "há", "havia", "pode", "podem", "cada",
    ]

    public static let dutch: Set<String> = [
        "de", "en", "van", "ik", "te", "dat", "die", "in", "een", "hij", "het", "niet", "zijn", "is", "was", "op", "aan",
        "met", "als", "voor", "had", "er", "maar", "om", "hem", "dan", "zou", "of", "wat", "mijn", "men", "dit", "zo",
        "door", "over", "ze", "zich", "bij", "ook", "tot", "je", "mij", "uit", "der", "daar", "haar", "naar", "heb", "hoe",
        "heeft", "hebben", "deze", "u", "want", "nog", "zal", "me", "zij", "nu", "ge", "geen", "omdat", "iets", "worden",
        "toch", "al", "waren", "veel", "meer", "doen", "toen", "moet", "ben", "zonder", "kan", "hun", "dus", "alles",
        "onder", "ja", "eens", "hier", "wie", "werd", "altijd", "doch", "wordt", "wezen", "kunnen", "ons", "zelf", "tegen",
        "na", "reeds", "wil", "kon", "niets", "uw", "iemand", "geweest", "andere", "welke", "wanneer",
    ]
}
