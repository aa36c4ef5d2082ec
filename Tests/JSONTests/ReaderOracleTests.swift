import DeterministicRandom
import Foundation
import JSON
import Testing

/// ``JSONReader`` is a strict parser written here; Foundation's JSONSerialization is an
/// independent one. Over thousands of random edits of valid documents, they must agree on
/// which inputs are JSON objects, and what we accept must write back to the same value.
@Suite("Reader against Foundation")
struct ReaderOracleTests {
    static let seeds = [
        #"{"characteristic":"indoor_bike_data","flags":2548,"more_data":false,"speed":31.42,"energy":null}"#,
        #"{"a":[1,-2.5e-3,0,1E+2,true,false,null],"b":{"c":"d\"e\\f\/g\b\f\n\r\t\u00e9\ud83d\ude00"}}"#,
        #"{"watch":{"machines":["SF-Bike-0001"],"types":["sample","status"]}}"#,
        #" { "nested" : { "deeper" : [ { } , [ ] , "" ] } } "#,
    ]
    static let alphabet = Array(#"{}[],:"\ -+.0123456789eEtrufalsn/u"#.utf8) + [0x00, 0x0A, 0x7F, 0xC3, 0xA9, 0xFF]

    static func foundationAccepts(_ bytes: [UInt8]) -> Bool {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return false }
        return value is NSDictionary || value is [String: Any]
    }

    /// Foundation accepts `[1,]` and `{"a":1,}`; RFC 8259 does not, and neither do we.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        let compact = bytes.filter { $0 != 0x20 && $0 != 0x0A }
        return zip(compact, compact.dropFirst()).contains { $0 == UInt8(ascii: ",") && ($1 == UInt8(ascii: "}") || $1 == UInt8(ascii: "]")) }
    }


    @Test func agreesOnRandomEdits() {
        var generator = SplitMix64(seed: 0x0AC1E)
        var disagreements: [String] = []
        var accepted = 0
        for iteration in 0..<10000 {
            var bytes = Array(Self.seeds[iteration % Self.seeds.count].utf8)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                let byte = Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))]
                switch generator.next() % 3 {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1 where position < bytes.count: bytes[position] = byte
                default: bytes.insert(byte, at: position)
                }
            }
            let read = Result { () throws(JSONSyntaxError) in try JSONReader.read(bytes) }
            let ours = (try? read.get())?.isObject ?? false
            if ours, let value = try? read.get() {
                accepted += 1
                #expect((try? JSONReader.read(JSONWriter.bytes(value))) == value)
            }
            let theirs = Self.foundationAccepts(bytes)
            if !ours, theirs, Self.hasTrailingComma(bytes) { continue }
            // Foundation keeps one of two equal keys; we refuse them (a request must not be ambiguous).
            if case .failure(let error) = read, error.kind == .duplicateKey, theirs { continue }
            if ours != theirs {
                disagreements.append("\(ours ? "we accept" : "we refuse"): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, e.g. \(disagreements.prefix(5))")
        // The edits must leave some inputs valid, or the test would only test refusals.
        #expect(accepted > 200)
    }
}
