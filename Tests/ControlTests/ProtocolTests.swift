import JSON
@testable import Control
import Testing

/// Requests and answers as text: every command read and written, every way a line can be
/// wrong, and answers as the wire carries them.
@Suite("Control protocol")
struct ProtocolTests {
    static let everyCommand: [ControlRequest] = [
        .status, .machines, .setResistance(machine: "SF-Bike-0001", level: 5.5), .setPower(machine: "SF-Bike-0001", watts: 150),
        .start(machine: "C0:11:22:33:44:01"), .stop(machine: "m"), .pause(machine: "m"), .reset(machine: "m"), .upload,
        .startTraining(machine: "SF-Rower-0001", training: "tr-rower-steady-15"), .stopTraining(machine: "SF-Rower-0001"),
        .handover(machines: ["SF-Bike-0001", "C0:11:22:33:44:02"]),
    ]

    @Test func everyCommandIsCovered() {
        #expect(Self.everyCommand.map(\.command) == ControlRequest.commandNames)
    }

    @Test(arguments: [
        (#"{"command":"status"}"#, ControlRequest.status),
        (#"{"command":"machines","id":3}"#, .machines),
        (#"{"command":"set_resistance","machine":"SF-Bike-0001","level":5.5}"#, .setResistance(machine: "SF-Bike-0001", level: 5.5)),
        (#"{"command":"set_resistance","machine":"b","level":8}"#, .setResistance(machine: "b", level: 8)),
        (#"{"command":"set_power","machine":"b","watts":150}"#, .setPower(machine: "b", watts: 150)),
        (#"{"command":"set_power","machine":"b","watts":150.0}"#, .setPower(machine: "b", watts: 150)),
        (#" { "machine" : "b" , "command" : "start" } "#, .start(machine: "b")),
        (#"{"command":"stop","machine":"b"}"#, .stop(machine: "b")),
        (#"{"command":"pause","machine":"b"}"#, .pause(machine: "b")),
        (#"{"command":"reset","machine":"b"}"#, .reset(machine: "b")),
        (#"{"command":"upload","id":"u-1"}"#, .upload),
        (#"{"command":"start_training","machine":"r","training":"tr-x"}"#, .startTraining(machine: "r", training: "tr-x")),
        (#"{"command":"stop_training","machine":"r"}"#, .stopTraining(machine: "r")),
        (#"{"command":"handover"}"#, .handover(machines: [])),
        (#"{"command":"handover","machines":["b","r"]}"#, .handover(machines: ["b", "r"])),
        (#"{"command":"start","machine":"Caf\u00e9 \ud83d\udeb2"}"#, .start(machine: "Café 🚲")),
    ])
    func readsEachCommand(line: String, expected: ControlRequest) throws {
        #expect(try ControlRequest(parsing: line) == expected)
    }

    @Test(arguments: everyCommand)
    func writtenRequestsReadBackTheSame(request: ControlRequest) throws {
        #expect(try ControlRequest(parsing: request.jsonLine()) == request)
        let withID = RequestLine(Array(request.jsonLine(id: .string("a\"b")).utf8))
        #expect(withID.id == .string("a\"b"))
        #expect(try withID.request.get() == request)
    }

    @Test func writtenRequestsLookAsDocumented() {
        #expect(ControlRequest.setResistance(machine: "SF-Bike-0001", level: 5.5).jsonLine(id: .integer(7))
            == #"{"id":7,"command":"set_resistance","machine":"SF-Bike-0001","level":5.5}"#)
        #expect(ControlRequest.setPower(machine: "b", watts: 150).jsonLine() == #"{"command":"set_power","machine":"b","watts":150}"#)
        #expect(ControlRequest.status.jsonLine() == #"{"command":"status"}"#)
    }

    @Test(arguments: [
        ("", "not JSON: expected a value, found the end at byte 0"),
        ("status", "not JSON: unexpected character at byte 0"),
        (#"{"command":"status",}"#, "not JSON: expected a key in quotes at byte 20"),
        (#"{"command":"status","command":"machines"}"#, #"not JSON: duplicate key "command" at byte 20"#),
        (#"{"command":"set_resistance","machine":"b","level":1e999}"#, "not JSON: number 1e999 is too large at byte 50"),
        (#"{"command":"start","machine":"\ud800"}"#, "not JSON: high surrogate without its low half at byte 36"),
        (#"{"command":"status"} {}"#, "not JSON: more after the value at byte 21"),
        (#"[{"command":"status"}]"#, #"a request is a JSON object such as {"command":"status"}"#),
        (#"{"machine":"b"}"#, #"no "command" (one of status, machines, set_resistance, set_power, start, stop, pause, reset, upload, start_training, stop_training, handover)"#),
        (#"{"command":5}"#, #""command" must be a string, not a number"#),
        (#"{"command":"launch"}"#, #"unknown command "launch" (known: status, machines, set_resistance, set_power, start, stop, pause, reset, upload, start_training, stop_training, handover)"#),
        (#"{"command":"set_resistance","machine":"b"}"#, #"set_resistance needs "level" (a number)"#),
        (#"{"command":"set_resistance","level":3}"#, #"set_resistance needs "machine" (a non-empty string)"#),
        (#"{"command":"set_resistance","machine":"b","level":"3"}"#, #""level" must be a number, not a string"#),
        (#"{"command":"set_resistance","machine":"b","level":4000}"#, #""level" 4000.0 is outside -3276.7…3276.7"#),
        (#"{"command":"set_power","machine":"b","watts":150.5}"#, #""watts" must be a whole number, not a fraction"#),
        (#"{"command":"set_power","machine":"b","watts":40000}"#, #""watts" 40000 is outside -32767…32767"#),
        (#"{"command":"set_power","machine":"b","watts":1e300}"#, #""watts" 1e+300 is outside -32767…32767"#),
        (#"{"command":"set_power","machine":"b","watts":null}"#, #""watts" must be a whole number, not null"#),
        (#"{"command":"start","machine":""}"#, #""machine" must be a non-empty string, not an empty string"#),
        (#"{"command":"start","machine":["b"]}"#, #""machine" must be a non-empty string, not a list"#),
        (#"{"command":"set_resistance","machine":"b","levl":3}"#, #"unknown field "levl" for set_resistance (it takes machine, level)"#),
        (#"{"command":"status","machine":"b"}"#, #"unknown field "machine" for status (it takes none)"#),
        (#"{"command":"status","id":[1]}"#, #""id" must be a string or an integer, not a list"#),
        (#"{"command":"status","id":1.5}"#, #""id" must be a string or an integer, not a number"#),
    ])
    func refusesBadRequestsWithOneLine(line: String, message: String) {
        #expect(throws: (any Error).self) { try ControlRequest(parsing: line) }
        let parsed = RequestLine(Array(line.utf8))
        guard case .failure(let error) = parsed.request else {
            Issue.record("\(line) was accepted")
            return
        }
        #expect(error.description == message)
        #expect(!error.description.contains("\n"))
    }

    @Test func aBadRequestKeepsItsID() {
        let line = RequestLine(Array(#"{"id":"x-1","command":"launch"}"#.utf8))
        #expect(line.id == .string("x-1"))
        #expect(throws: ControlRequestError.unknownCommand("launch")) { try line.request.get() }
    }

    @Test func invalidUTF8IsRefused() {
        let bytes = Array(#"{"command":"start","machine":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        guard case .failure(let error) = RequestLine(bytes).request else {
            Issue.record("accepted invalid UTF-8")
            return
        }
        #expect(error == .notJSON("invalid UTF-8 in a string at byte 29"))
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError(reason: "nested deeper than 32", offset: 32)) { try JSONReader.read(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: Never.self) { try JSONReader.read(Array(fine.utf8)) }
    }

    // MARK: Answers

    @Test func answersLookAsDocumented() throws {
        let result = try ControlResponse.success(resultJSON: "{\n  \"machines\": [\"a\", \"b\"],\n  \"count\": 2\n}")
        #expect(result.line(id: .integer(7)) == "{\"ok\":true,\"id\":7,\"result\":{\"machines\":[\"a\",\"b\"],\"count\":2}}\n")
        #expect(ControlResponse.ok.line(id: nil) == "{\"ok\":true,\"result\":{}}\n")
        let failure = ControlResponse.failure(.unknownMachine, "no machine \"X\"\nknown: a, b")
        #expect(failure.line(id: .string("q")) == "{\"ok\":false,\"id\":\"q\",\"error\":\"no machine \\\"X\\\" known: a, b\",\"code\":\"unknown_machine\"}\n")
        #expect(failure.failure == ControlFailure(code: .unknownMachine, message: "no machine \"X\" known: a, b"))
    }

    @Test(arguments: ["[1,2]", "\"text\"", "{", "{\"a\":1} x", "{\"a\":1,\"a\":2}"])
    func aResultMustBeOneJSONObject(text: String) {
        #expect(throws: ControlResultError.self) { try ControlResponse.success(resultJSON: text) }
    }

    @Test func answersReadBackTheSame() throws {
        let answers: [ControlResponse] = [
            .ok, try .success(resultJSON: #"{"level":5.5,"n":-3,"big":1e300,"s":"a\u0000b\u2028","list":[true,false,null],"o":{}}"#),
            .failure(.busy, "a training runs on SF-Bike-0001"), .failure(ControlErrorCode(rawValue: "new_code"), "from a newer daemon"),
        ]
        for answer in answers {
            for id in [nil, ControlRequestID.integer(-9), .string("é")] {
                let line = answer.line(id: id)
                #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
                let parsed = try ControlResponse.parse(answer: Array(line.dropLast().utf8))
                #expect(parsed.id == id)
                #expect(parsed.response == answer)
            }
        }
    }

    @Test(arguments: [
        ("garbage", "not JSON: unexpected character at byte 0"),
        ("[]", "not a JSON object"),
        (#"{"result":{}}"#, #"no boolean "ok""#),
        (#"{"ok":true}"#, #""ok" is true but "result" is not an object"#),
        (#"{"ok":false,"error":"x"}"#, #""ok" is false but "error" and "code" are not both strings"#),
    ])
    func untrustworthyAnswersAreRefused(line: String, reason: String) {
        #expect(throws: ControlResponse.AnswerError.self) { try ControlResponse.parse(answer: Array(line.utf8)) }
        do {
            _ = try ControlResponse.parse(answer: Array(line.utf8))
        } catch {
            #expect(error.description == reason)
        }
    }
}
