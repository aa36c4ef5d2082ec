import Daemon
import Foundation
import Testing

/// Releasing start-up code: only executable, file-backed mappings without a copied-on-write
/// page are candidates, and releasing them in a live process lowers its RSS and leaves every
/// function callable.
@Suite("Daemon: releasing start-up code pages")
struct StartupPagesTests {
    static let smaps = """
        55d0c0a00000-55d0c0b00000 r--p 00000000 fe:01 131 /usr/bin/ftms-bridge
        Size:               1024 kB
        Rss:                 628 kB
        Anonymous:           628 kB
        55d0c0b00000-55d0c1900000 r-xp 00100000 fe:01 131 /usr/bin/ftms-bridge
        Size:              14336 kB
        Rss:               10740 kB
        Anonymous:             0 kB
        7f0000000000-7f0000400000 r-xp 00000000 fe:01 77 /usr/lib/libswiftCore.so
        Size:               4096 kB
        Rss:                4736 kB
        Anonymous:             4 kB
        7f0000400000-7f0000500000 rw-p 00400000 fe:01 77 /usr/lib/libswiftCore.so
        Rss:                 412 kB
        Anonymous:            64 kB
        7f0000600000-7f0000700000 r-xp 00000000 00:00 0
        Rss:                  16 kB
        Anonymous:             0 kB
        7f0000800000-7f0000810000 r-xp 00000000 fe:01 90 /usr/lib/libdbus-1.so.3
        Rss:                  64 kB
        Anonymous:             0 kB
        ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]
        Rss:                   0 kB
        """

    @Test func onlyCleanExecutableFileMappingsAreCandidates() {
        let candidates = StartupPages.candidates(smaps: Self.smaps)
        #expect(candidates == [
            StartupPages.Mapping(start: 0x55d0_c0b0_0000, end: 0x55d0_c190_0000, residentKiB: 10740),
            StartupPages.Mapping(start: 0x7f00_0080_0000, end: 0x7f00_0081_0000, residentKiB: 64),
        ])
    }

    @Test func readOnlyDataAddsCleanReadOnlyFileMappingsOnly() {
        let smaps = Self.smaps + """

            7f0000900000-7f0002900000 r--p 00000000 fe:01 91 /usr/lib/lib_FoundationICU.so
            Rss:                3072 kB
            Anonymous:             0 kB
            7f0003000000-7f0003010000 r--p 00000000 00:00 0
            Rss:                  64 kB
            Anonymous:             0 kB
            """
        let icu = StartupPages.Mapping(start: 0x7f00_0090_0000, end: 0x7f00_0290_0000, residentKiB: 3072)
        // The relocated (copied-on-write) r--p mapping of the binary and the anonymous one stay.
        #expect(StartupPages.candidates(smaps: smaps, readOnlyData: true) == [
            StartupPages.Mapping(start: 0x55d0_c0b0_0000, end: 0x55d0_c190_0000, residentKiB: 10740),
            StartupPages.Mapping(start: 0x7f00_0080_0000, end: 0x7f00_0081_0000, residentKiB: 64),
            icu,
        ])
        #expect(!StartupPages.candidates(smaps: smaps).contains(icu))
    }

    @Test func aMappingWithoutAnAnonymousLineIsNotACandidate() {
        // Without the line there is no proof that no page was copied on write.
        let smaps = "7f0000800000-7f0000810000 r-xp 00000000 fe:01 90 /usr/lib/libx.so\nRss: 64 kB\n"
        #expect(StartupPages.candidates(smaps: smaps).isEmpty)
    }

    @Test func garbageIsNoCandidate() {
        for text in ["", "-", "zz-yy r-xp 0 fe:01 9 /x\nAnonymous: 0 kB", "10-5 r-xp 0 fe:01 9 /x\nAnonymous: 0 kB", "\n\n::\n"] {
            #expect(StartupPages.candidates(smaps: text).isEmpty, "\(text)")
        }
    }

    @Test func releasingInALiveProcessLowersRSSAndCodeStillRuns() throws {
        let before = try Self.residentKiB()
        let released = StartupPages.release()
        let after = try Self.residentKiB()
        #expect(released > 0)
        #expect(after < before)
        // Code that was dropped maps back in on its next call.
        let encoded = try JSONEncoder().encode(["still": "running"])
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"still":"running"}"#)
        #expect(StartupPages.release(smapsPath: "/nonexistent/smaps") == 0)
    }

    @Test func releasingReadOnlyDataToo() throws {
        // Touch read-only data (Foundation's and ICU's tables) so that there is some to release.
        let formatted = Date(timeIntervalSince1970: 0).formatted(.iso8601)
        let before = try Self.residentKiB()
        let released = StartupPages.release(readOnlyData: true)
        #expect(released > 0)
        #expect(try Self.residentKiB() < before)
        #expect(Date(timeIntervalSince1970: 0).formatted(.iso8601) == formatted)
    }

    @Test func mallocTuningIsTakenAndTrimRuns() {
        #expect(MallocTuning.apply())
        // Free a large heap block's worth of small ones, then trim: the call must succeed and
        // the process go on allocating.
        var blocks: [[UInt8]] = (0..<2000).map { [UInt8](repeating: UInt8($0 & 0xff), count: 1000) }
        blocks.removeAll()
        _ = MallocTuning.trim()
        #expect([UInt8](repeating: 7, count: 10).reduce(0, +) == 70)
    }

    static func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
