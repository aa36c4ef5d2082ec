/// A counted sample whose hold is still open: it stands for the time until the next input,
/// capped, and is accumulated when that time is known.
struct HeldSample: Sendable, Hashable, Codable {
    var at: Int64
    var reading: SampleReading
}
