import Cluster
import Testing

@Suite struct StandbyPlanTests {
    @Test func theLeaderIsNeverItsOwnStandby() {
        for shard in 0..<64 {
            for leader in ["a", "b", "c"] {
                let s = StandbyPlan.standbys(of: shard, leader: leader, nodes: ["a", "b", "c"], count: 2)
                #expect(s.count == 2 && !s.contains(leader) && Set(s).count == 2)
            }
        }
    }

    @Test func fewerNodesThanAskedGiveWhatThereIs() {
        #expect(StandbyPlan.standbys(of: 3, leader: "a", nodes: ["a"], count: 1) == [])
        #expect(StandbyPlan.standbys(of: 3, leader: "a", nodes: ["a", "b"], count: 3) == ["b"])
        #expect(StandbyPlan.standbys(of: 3, leader: "a", nodes: ["a", "b"], count: 0) == [])
    }

    @Test func aJoiningNodeChangesOnlyTheShardsItRanksFirstFor() {
        var changed = 0
        for shard in 0..<256 {
            let before = StandbyPlan.standbys(of: shard, leader: "a", nodes: ["a", "b", "c"], count: 1)
            let after = StandbyPlan.standbys(of: shard, leader: "a", nodes: ["a", "b", "c", "d"], count: 1)
            if before != after {
                #expect(after == ["d"])
                changed += 1
            }
        }
        // d ranks first among b, c, d for about a third of the shards.
        #expect(changed > 40 && changed < 130, "\(changed)")
    }
}
