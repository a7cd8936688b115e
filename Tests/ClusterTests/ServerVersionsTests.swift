import Testing
@testable import Cluster

/// Which nats-server releases a node trims the write log on (`ServerVersions`).
@Suite struct ServerVersionsTests {
    @Test func releasesAreReadFromTheInfoLine() {
        let info = #"INFO {"server_id":"NABC","server_name":"n0","version":"2.9.10","proto":1,"go":"go1.19.8","host":"127.0.0.1","port":4222,"jetstream":true}"#
        #expect(ServerVersions.version(fromInfo: info) == "2.9.10")
        #expect(ServerVersions.version(fromInfo: #"INFO {"version": "2.15.1"}"#) == "2.15.1")
        #expect(ServerVersions.version(fromInfo: #"-ERR 'Authorization Violation'"#) == nil)
        #expect(ServerVersions.version(fromInfo: #"INFO {"server_id":"x"}"#) == nil)
    }

    @Test func releasesCompareByNumberNotByText() {
        #expect(ServerVersions.parse("2.9.10") == [2, 9, 10])
        #expect(ServerVersions.parse("2.10.0-beta.3") == [2, 10, 0])
        #expect(ServerVersions.parse("two") == nil && ServerVersions.parse("") == nil && ServerVersions.parse("2..1") == nil)
        let before = ["2.9.10", "2.9.17", "2.8.4", "1.4.1"], after = ["2.9.18", "2.9.25", "2.10.0", "2.15.1", "3.0"]
        for v in before { #expect(ServerVersions.isBefore(ServerVersions.parse(v)!, ServerVersions.trimSafe), "\(v)") }
        for v in after { #expect(!ServerVersions.isBefore(ServerVersions.parse(v)!, ServerVersions.trimSafe), "\(v)") }
    }

    @Test func aServerThatCannotBeReachedHasNoRelease() {
        #expect(ServerVersions.version(of: "nats://127.0.0.1:1", timeoutMs: 500) == nil)
        #expect(ServerVersions.version(of: "not a url") == nil)
        var said: [String] = []
        #expect(!Node.mayTrim(["nats://127.0.0.1:1"], say: { said.append($0) }))
        #expect(said.count == 1 && said[0].contains("cannot be read"))
    }
}
