import Floor
import Testing

/// The floor's topic tree (docs/mqtt.md): built and read back in one place.
@Suite struct TopicsTests {
    let topics = FloorTopics(prefix: "ftms-bridge")

    @Test func theThreeTopicShapes() {
        #expect(topics.presence(gateway: "floor-1") == "ftms-bridge/floor/gateways/floor-1")
        #expect(topics.claim(machine: "aa:bb:cc:dd:ee:01") == "ftms-bridge/floor/machines/AA:BB:CC:DD:EE:01/claim")
        #expect(topics.checkpoint(machine: "AA:BB:CC:DD:EE:01") == "ftms-bridge/floor/machines/AA:BB:CC:DD:EE:01/checkpoint")
        #expect(topics.filters == ["ftms-bridge/floor/gateways/+", "ftms-bridge/floor/machines/+/claim", "ftms-bridge/floor/machines/+/checkpoint"])
    }

    @Test func receivedTopicsReadBack() {
        #expect(topics.parse(topics.presence(gateway: "floor-1")) == .presence(gateway: "floor-1"))
        #expect(topics.parse(topics.claim(machine: "aa:bb:cc:dd:ee:01")) == .claim(machine: "AA:BB:CC:DD:EE:01"))
        #expect(topics.parse(topics.checkpoint(machine: "AA:BB:CC:DD:EE:01")) == .checkpoint(machine: "AA:BB:CC:DD:EE:01"))
    }

    @Test(arguments: [
        "ftms-bridge/floor-1/status", "ftms-bridge/floor/machines/M/state", "ftms-bridge/floor/gateways/a/b", "ftms-bridge/floor/gateways/",
        "ftms-bridge/floor/machines//claim", "other/floor/gateways/x", "ftms-bridge/floor", "ftms-bridge/floorx/gateways/x",
    ])
    func otherTopicsAreNotTheFloors(_ topic: String) {
        #expect(topics.parse(topic) == nil)
    }

    @Test func aNameCannotReachIntoAnotherTopic() {
        #expect(topics.presence(gateway: "a/b+#c d") == "ftms-bridge/floor/gateways/a_b__c_d")
        #expect(FloorTopics.level("") == "_")
        #expect(topics.parse(topics.presence(gateway: "a/b")) == .presence(gateway: "a_b"))
    }
}
