@testable import Daemon
import Foundation
import Testing

/// Fault-around off: a read fault in a registered file mapping maps one page, in an unregistered
/// one the 64 KiB around it; and where the kernel refuses, the daemon is told why and nothing
/// changes. Real mappings of a real file in this process, measured in `/proc/self/smaps`.
@Suite("Daemon: fault-around off through userfaultfd")
struct FaultAroundTests {
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// A 1 MiB file in the page cache (just written), mapped private and writable so that no
    /// parallel test's trim (which only releases read-only mappings) drops its pages under us.
    final class MappedFile {
        let path: String
        let descriptor: Int32
        let address: UnsafeMutableRawPointer
        let length = 1 << 20

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("fault-around-\(UUID().uuidString)").path
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 / FaultAroundTests.pageSize) })
            try bytes.write(to: URL(fileURLWithPath: path))
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0)
            address = try #require(mapped == UnsafeMutableRawPointer(bitPattern: -1) ? nil : mapped)
        }

        deinit {
            munmap(address, length)
            close(descriptor)
            unlink(path)
        }

        /// Reads one byte of page `page` (a read fault) and returns what it holds.
        func touch(page: Int) -> UInt8 {
            address.load(fromByteOffset: page * FaultAroundTests.pageSize + 1, as: UInt8.self)
        }

        /// This mapping's `Rss:` in KiB.
        func residentKiB() throws -> Int {
            // Read to the end with read(2): the file is long and procfs gives no size.
            let smaps = String(decoding: try #require(StartupPages.readFile("/proc/self/smaps")), as: UTF8.self)
            let header = String(UInt(bitPattern: address), radix: 16) + "-"
            var inside = false
            for line in smaps.split(separator: "\n") {
                if line.hasPrefix(header) { inside = true; continue }
                if inside, line.hasPrefix("Rss:") {
                    return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
                }
            }
            Issue.record("no mapping at \(header) in smaps")
            return -1
        }
    }

    @Test func aRegisteredMappingFaultsOnePageAtATime() throws {
        let registered = try MappedFile()
        let plain = try MappedFile()
        switch FaultAround.openDescriptor() {
        case .failure(let error):
            // A kernel before 6.7, or a filter: the daemon reports it and keeps fault-around.
            #expect([EINVAL, ENOSYS, EPERM, EOPNOTSUPP].contains(error.code), "errno \(error.code)")
        case .success(let descriptor):
            defer { close(descriptor) }
            #expect(FaultAround.register(descriptor, start: UInt(bitPattern: registered.address), length: registered.length) == nil)
            // Three reads far apart in each mapping: the bytes are the file's, and only the
            // registered mapping stays at one page per fault.
            for page in [3, 100, 200] {
                #expect(registered.touch(page: page) == UInt8(page))
                #expect(plain.touch(page: page) == UInt8(page))
            }
            let pageKiB = Self.pageSize / 1024
            #expect(try registered.residentKiB() == 3 * pageKiB)
            #expect(try plain.residentKiB() > 3 * pageKiB)
            // Releasing and faulting again keeps to one page; writes still copy on write.
            #expect(madvise(registered.address, registered.length, MADV_DONTNEED) == 0)
            #expect(try registered.residentKiB() == 0)
            #expect(registered.touch(page: 50) == 50)
            registered.address.storeBytes(of: 0xAB, toByteOffset: 60 * Self.pageSize, as: UInt8.self)
            #expect(registered.address.load(fromByteOffset: 60 * Self.pageSize, as: UInt8.self) == 0xAB)
            #expect(try registered.residentKiB() == 2 * pageKiB)
        }
    }

    @Test func registeringWhatIsNoMappingIsRefused() throws {
        guard case .success(let descriptor) = FaultAround.openDescriptor() else { return }
        defer { close(descriptor) }
        // Page-aligned but unmapped (the zero page), and not page-aligned at all.
        #expect(FaultAround.register(descriptor, start: 0, length: Self.pageSize) != nil)
        #expect(FaultAround.register(descriptor, start: 1, length: Self.pageSize) != nil)
    }

    @Test func disablingInTheLiveProcessSaysWhatItDid() {
        let outcome = FaultAround.disable()
        switch (outcome, FaultAround.openDescriptor()) {
        case (.disabled(let mappings, let kib), .success(let probe)):
            close(probe)
            // At least this test binary's code and libswiftCore's.
            #expect(mappings >= 2)
            #expect(kib > 1024)
            #expect(outcome.description.hasPrefix("fault-around off for \(mappings) clean file mappings"))
        case (.unavailable(let step, _), .failure):
            #expect(step == "userfaultfd")
            #expect(outcome.description.hasPrefix("fault-around stays on: userfaultfd failed: "))
        default:
            Issue.record("disable() and a fresh descriptor disagree: \(outcome)")
        }
        #expect(FaultAround.disable(smapsPath: "/nonexistent/smaps") == .unavailable(step: "reading /nonexistent/smaps", errno: ENOENT))
    }
}
