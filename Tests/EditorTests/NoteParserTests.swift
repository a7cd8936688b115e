@testable import Editor
import Testing

@Suite struct NoteParserTests {
    @Test func aFileOfDatedSectionsIsOneEntryPerSection() {
        let text = """
            # Journal, January

            Things I want to remember.

            ## 2025-01-04

            Missed the train again.
            The doors closed.

            ## Sunday 5 January 2025

            Allotment: planted garlic.
            ### Later
            Soup.

            ## 2025-01-04

            A second entry that day.
            """
        let entries = NoteParser.entries(text: text, fileName: "journal/2025-01.md")
        #expect(entries.map(\.section) == [nil, "2025-01-04", "2025-01-05", "2025-01-04~2"])
        #expect(entries.map(\.date) == [nil, "2025-01-04", "2025-01-05", "2025-01-04"])
        // What comes before the first dated section, its title included.
        #expect(entries[0].text == "# Journal, January\n\nThings I want to remember." && entries[0].startLine == 0 && entries[0].endLine == 2)
        #expect(entries[0].title == "Journal, January")
        #expect(entries[1].title == "2025-01-04")
        #expect((entries[1].startLine, entries[1].bodyLine, entries[1].endLine) == (4, 6, 7))
        #expect(entries[1].text == "Missed the train again.\nThe doors closed.")
        // A lower heading stays inside its dated section.
        #expect(entries[2].text == "Allotment: planted garlic.\n### Later\nSoup.")
        #expect(entries[3].text == "A second entry that day." && entries[3].endLine == 17)
    }

    @Test func aFileWithoutDatedHeadingsIsOneEntryDatedByItsName() {
        let entries = NoteParser.entries(text: "\n# A reading nook\n\nA lamp and an armchair.\n\n", fileName: "ideas/2025-03-15.md")
        #expect(entries.count == 1)
        #expect(entries[0].section == nil && entries[0].date == "2025-03-15" && entries[0].title == "A reading nook")
        #expect((entries[0].startLine, entries[0].endLine) == (1, 3))
        #expect(entries[0].text == "# A reading nook\n\nA lamp and an armchair.")
    }

    @Test func frontMatterDatesTheFileAndIsNotText() {
        let entries = NoteParser.entries(text: "---\ntitle: x\ndate: \"2024-11-02\"\n---\nBody line.\r\n", fileName: "notes.md")
        #expect(entries.count == 1 && entries[0].date == "2024-11-02" && entries[0].text == "Body line." && entries[0].startLine == 4)
        #expect(entries[0].title == "notes")
    }

    @Test func headingsInFencedCodeAndDatesThatAreNotDaysDoNotCount() {
        let text = "Intro.\n```\n## 2025-01-04\n```\n## 2025-02-30 is not a date\ntext\n"
        let entries = NoteParser.entries(text: text, fileName: "a.txt")
        #expect(entries.count == 1 && entries[0].section == nil)
        #expect(NoteParser.entries(text: "   \n\n", fileName: "empty.md").isEmpty)
    }

    @Test(arguments: [
        ("## 2025-01-04", "2025-01-04"), ("Monday 6 January 2025", "2025-01-06"), ("6 Jan 2025", "2025-01-06"),
        ("January 6th, 2025", "2025-01-06"), ("29 February 2024", "2024-02-29"), ("29 February 2025", nil),
        ("12025-01-04", nil), ("January 2025", nil), ("2025-13-01", nil),
    ] as [(String, String?)])
    func datesAsPeopleWriteThem(text: String, date: String?) {
        #expect(NoteDates.find(in: Substring(text)) == date)
    }

    @Test func fileURIsRoundTrip() {
        let path = "/home/me/notes/a b/Café #1.md"
        #expect(FileURI.uri(path) == "file:///home/me/notes/a%20b/Caf%C3%A9%20%231.md")
        #expect(FileURI.path(FileURI.uri(path)) == path)
        #expect(FileURI.path("file://localhost/tmp/x.md") == "/tmp/x.md")
        #expect(FileURI.path("untitled:1") == nil && FileURI.path("file:///bad%zz") == nil)
    }

    @Test func notesFolderSkipsHiddenFoldersAndOtherExtensions() {
        let folder = NotesFolder(root: "/n/./notes/")
        #expect(folder.root == "/n/notes")
        #expect(folder.holds("/n/notes/journal/2025-01.md") && folder.holds("/n/notes/a.TXT"))
        #expect(!folder.holds("/n/notes/.obsidian/x.md") && !folder.holds("/n/notes/a.pdf") && !folder.holds("/n/other/a.md"))
        #expect(!folder.holds("/n/notes/.md"))
    }
}
