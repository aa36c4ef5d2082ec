/// Bit-exact codec for the Bluetooth SIG Fitness Machine Service 1.0 (contract §3).
///
/// The module is pure: it decodes and encodes bytes, merges split records on times it is
/// given, and writes JSON into caller-owned buffers. It does no I/O, reads no clock and never
/// imports Foundation, so live BLE, capture replay, the simulator and the fuzzer all run the
/// same code.
///
/// Every characteristic is described by tables (``FieldDescriptor``, ``RecordLayout``,
/// ``ParameterLayout``) instead of hand-written parsing per field. The FTMS rules that real
/// machines trip over (bit 0 inverted, sint16 power, energy-only sentinels, uint24 distance)
/// then live in exactly one place, and decoding, encoding, JSON and plausibility checks can
/// never disagree about a field's width or scale.
///
/// Decoding never traps on any input and never allocates on the heap for data records:
/// values live in fixed-size inline storage (``FieldValues``).
public enum FTMSCodec {
    /// Bumped when the JSON shape of decoded output changes in a way readers can observe.
    public static let jsonVersion = "1.0"
}
