import Floor
import Testing

@Suite struct WireTests {
    @Test func presenceRoundTrips() throws {
        let presence = GatewayPresence(
            gateway: "floor-1", home: ["AA:BB:CC:DD:EE:01", "SF-Bike-0001"], freeSlots: 3, heard: ["AA:BB:CC:DD:EE:01": -58],
            holding: ["AA:BB:CC:DD:EE:02"], releasing: [], beat: 17)
        #expect(try GatewayPresence(payload: presence.payload) == presence)
    }
}
