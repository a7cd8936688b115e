@testable import Editor
import Testing

@Suite struct GlobTests {
    @Test func starsQuestionMarksSetsAndBraces() {
        #expect(Glob("*.md").matches("a.md") && !Glob("*.md").matches("a/b.md") && !Glob("*.md").matches("a.mdx"))
        #expect(Glob("**/*.md").matches("a.md") && Glob("**/*.md").matches("a/b/c.md"))
        #expect(Glob("a/**/b").matches("a/b") && Glob("a/**/b").matches("a/x/y/b") && !Glob("a/**/b").matches("a/x/c"))
        #expect(Glob("note-?.txt").matches("note-1.txt") && !Glob("note-?.txt").matches("note-12.txt"))
        #expect(Glob("[a-c]*.md").matches("b1.md") && !Glob("[!a-c]*.md").matches("b1.md") && Glob("[!a-c]*.md").matches("d.md"))
        #expect(Glob("\\*.md").matches("*.md") && !Glob("\\*.md").matches("x.md"))
        #expect(Glob("**/*.{md,txt}", braces: true).matches("x/y.txt") && !Glob("**/*.{md,txt}").matches("x/y.txt"))
        #expect(Glob.expandBraces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"] && Glob.expandBraces("a{b}c") == ["a{b}c"])
    }

    @Test func gitignoreRulesAsGitReadsThem() {
        let rules = GitIgnore(text: "# comment\n\ndrafts/\n*.tmp.md\n/private.md\nbuild\n!keep.tmp.md\ndoc/*.txt  \n\\#hash.md\n")
        #expect(rules.verdict("drafts", isFolder: true) == true && rules.verdict("drafts", isFolder: false) == nil)
        #expect(rules.verdict("x/y.tmp.md", isFolder: false) == true && rules.verdict("keep.tmp.md", isFolder: false) == false)
        #expect(rules.verdict("private.md", isFolder: false) == true && rules.verdict("sub/private.md", isFolder: false) == nil)
        #expect(rules.verdict("a/build", isFolder: true) == true && rules.verdict("a/build", isFolder: false) == true)
        #expect(rules.verdict("doc/a.txt", isFolder: false) == true && rules.verdict("doc/x/a.txt", isFolder: false) == nil)
        #expect(rules.verdict("#hash.md", isFolder: false) == true && rules.verdict("comment", isFolder: false) == nil)
    }

    @Test func aDeeperGitignoreWins() {
        var stack = IgnoreStack()
        stack.levels = [("", GitIgnore(text: "*.tmp.md\n")), ("sub", GitIgnore(text: "!scratch.tmp.md\nlocal.md\n"))]
        #expect(stack.ignores("a.tmp.md", isFolder: false) && !stack.ignores("sub/scratch.tmp.md", isFolder: false))
        #expect(stack.ignores("sub/other.tmp.md", isFolder: false) && stack.ignores("sub/local.md", isFolder: false) && !stack.ignores("local.md", isFolder: false))
    }

    @Test func frontMatterKind() {
        let entries = NoteParser.entries(text: "---\nkind: \"dream\"\ndate: 2025-02-09\n---\n\nHerons.\n", fileName: "d.md")
        #expect(entries.map(\.kind) == ["dream"] && entries[0].date == "2025-02-09")
        #expect(NoteParser.entries(text: "---\nkind: two words\n---\nx\n", fileName: "d.md").map(\.kind) == [nil])
        #expect(NoteParser.entries(text: "kind: dream\n\nx\n", fileName: "d.md").map(\.kind) == [nil])
    }
}
