import DeterministicRandom
import JSON
@testable import Control
import OwnThread
import TestSupport
import Testing

/// Random and mutated bytes, at the parsers and at a live server: nothing may trap, whatever
/// is accepted must mean what it says, and the server goes on serving.
@Suite("Control fuzz")
struct FuzzTests {
    static let seeds: [[UInt8]] = ProtocolTests.everyCommand.map { Array($0.jsonLine(id: .integer(42)).utf8) } + [
        Array(#"{"id":"x\u00e9\ud83d\udeb2","command":"start","machine":"a\\b\"c"}"#.utf8),
        Array(#"{"ok":true,"id":1,"result":{"a":[1,2.5e-3,-0,true,null,{"b":"c"}]}}"#.utf8),
    ]

    /// One of: random bytes, a seed with a few bytes changed, inserted or deleted, or two seeds
    /// spliced.
    static func input(_ random: inout SplitMix64) -> [UInt8] {
        switch random.next() % 4 {
        case 0:
            return (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1:
            let first = seeds[Int(random.next() % UInt64(seeds.count))]
            let second = seeds[Int(random.next() % UInt64(seeds.count))]
            return Array(first.prefix(Int(random.next() % UInt64(first.count + 1))) + second.suffix(Int(random.next() % UInt64(second.count + 1))))
        default:
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0...Int(random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                let byte = [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"), 0x80, 0xFF, 0x00, UInt8(truncatingIfNeeded: random.next())][Int(random.next() % 8)]
                switch random.next() % 3 {
                case 0 where position < bytes.count: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: if position < bytes.count { bytes.remove(at: position) }
                }
            }
            return bytes
        }
    }

    @Test func theParsersNeverTrapAndWhatTheyAcceptRoundTrips() throws {
        var random = SplitMix64(seed: 0xF0_22)
        var accepted = 0
        var refused = 0
        for _ in 0..<30_000 {
            let bytes = Self.input(&random)
            let line = RequestLine(bytes)
            switch line.request {
            case .success(let request):
                accepted += 1
                let again = RequestLine(Array(request.jsonLine(id: line.id).utf8))
                #expect(again.id == line.id)
                #expect(try again.request.get() == request)
            case .failure(let error):
                refused += 1
                #expect(!error.description.contains("\n"))
            }
            if let value = try? JSONReader.read(bytes) {
                #expect(try JSONReader.read(Array(JSONWriter.text(value).utf8)) == value)
            }
            if let answer = try? ControlResponse.parse(answer: bytes) {
                #expect(try ControlResponse.parse(answer: Array(answer.response.line(id: answer.id).dropLast().utf8)) == answer)
            }
        }
        // Both sides were exercised: the mutations keep some requests valid.
        #expect(accepted > 300)
        #expect(refused > 3_000)
    }

    /// Two hundred connections of random bytes, newlines sprinkled in, some cut off mid-line:
    /// each answer is one of ours, and afterwards the server still answers a real client.
    @Test func aLiveServerSurvivesRandomBytes() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, maxClients: 64, maximumLineLength: 512)) { fixture in
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        try await onOwnThread {
                            var random = SplitMix64(seed: 0xB17E_5000 + UInt64(worker))
                            var answers = 0
                            for _ in 0..<25 {
                                var stream = try fixture.connect()
                                var sent = 0
                                for _ in 0..<Int(random.next() % 6) {
                                    var bytes = Self.input(&random)
                                    if random.next() % 5 == 0 { bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 600) }
                                    if random.next() % 4 != 0 { bytes.append(UInt8(ascii: "\n")) }
                                    try? stream.send(bytes, deadline: .now + .seconds(5))
                                    sent += 1
                                }
                                if random.next() % 2 == 0 {
                                    stream.shutdownWrite()
                                    while let answer = try? stream.line() {
                                        let parsed = try ControlResponse.parse(answer: Array(answer.utf8))
                                        #expect(parsed.response.isOK || parsed.response.failure != nil)
                                        answers += 1
                                    }
                                }
                                _ = sent
                            }
                            return answers
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(answered > 50)
            let client = fixture.client
            let response = try await onOwnThread { try client.request(.setResistance(machine: "m", level: 3.5)) }
            #expect(try ControlRequest(parsing: try #require(response.resultJSON)) == .setResistance(machine: "m", level: 3.5))
        }
    }
}

