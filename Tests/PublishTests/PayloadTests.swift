import Publish
import Testing

/// A payload is one JSON object that cannot break a line.
@Suite("Payload")
struct PayloadTests {
    @Test(arguments: [
        #"{"a":1}"#, #"{}"#, #"{"nested":{"list":[1,-2.5e3,true,false,null,"x\n\u00e9\ud83d\ude00"]}}"#,
        " {\"a\":\n1}\r\n",
    ])
    func objectsAreAccepted(text: String) throws {
        let payload = try JSONPayload(validating: text)
        #expect(!payload.bytes.contains(0x0A) && !payload.bytes.contains(0x0D))
        #expect(payload.bytes.first == UInt8(ascii: "{") && payload.bytes.last == UInt8(ascii: "}"))
    }

    @Test(arguments: [
        ("[1,2]", PayloadError.notAnObject),
        ("\"text\"", .notAnObject),
        ("{\"a\":1", .notJSON("expected ',' or '}' at byte 6")),
        ("{\"a\":\"line\nbreak\"}", .notJSON("control character in a string at byte 10")),
        ("{\"a\":01}", .notJSON("expected ',' or '}' at byte 6")),
        ("{\"a\":1}{}", .notJSON("more after the value at byte 7")),
        ("", .notJSON("expected a value, found the end at byte 0")),
    ])
    func othersAreRefused(text: String, error: PayloadError) {
        #expect(throws: error) { try JSONPayload(validating: text) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: PayloadError.notJSON("invalid UTF-8 in a string at byte 1")) {
            try JSONPayload(validating: [UInt8(ascii: "{"), UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: "1"), UInt8(ascii: "}")])
        }
    }
}
