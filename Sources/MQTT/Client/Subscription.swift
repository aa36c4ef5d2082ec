/// One `subscribe` call: its topic filter and the stream its messages go to.
struct Subscription: Sendable {
    let filter: String
    let qos: Int32
    let continuation: AsyncStream<MQTTMessage>.Continuation
}
