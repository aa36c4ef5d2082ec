#if canImport(Glibc)
import Glibc
#endif
import CFaultAround
public import Logging

/// Makes every later page fault in the daemon's clean file mappings map one page instead of 16.
///
/// On a fault in a file mapping Linux maps the faulting page and the neighbours already in the
/// page cache, 64 KiB around it (`fault_around_bytes`, one setting for the whole machine). For
/// a process whose code is all in the page cache that means each function the daemon calls
/// keeps 64 KiB of its binary or library counted in RSS: round 3 measured 8 MB of the 16 MB
/// `.text` of `ftms-bridge` resident a few seconds after a trim, the riding path's functions
/// being spread over the whole text (docs/performance.md, "Where the RSS goes").
///
/// The kernel skips fault-around for a mapping registered with a userfaultfd in write-protect
/// mode (`uffd_disable_fault_around`, mm/memory.c). Since Linux 6.7 a descriptor negotiated with
/// `UFFD_FEATURE_WP_ASYNC` may register any mapping, file-backed ones included, and resolves
/// write-protect faults itself, so nobody has to read it. Nothing is ever write-protected here
/// (the mappings are read-only anyway), so the registration changes nothing but fault-around.
/// The descriptor stays open for the life of the process: closing it would unregister.
///
/// `UFFD_USER_MODE_ONLY` keeps it within what an unprivileged service may open when
/// `vm.unprivileged_userfaultfd` is 0, and systemd's `@system-service` (the shipped unit's
/// filter) allows the call. Where the kernel is older or the call is filtered,
/// ``disable(smapsPath:)`` says why and the daemon runs as before, with fault-around.
public enum FaultAround {
    /// `FTMS_BRIDGE_FAULT_AROUND=on` in the daemon's environment leaves fault-around on: for
    /// measuring what this saves (`scripts/bench-daemon.py`), or if a kernel misbehaves.
    public static let environmentKey = "FTMS_BRIDGE_FAULT_AROUND"

    /// What ``disable(smapsPath:)`` did.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// This many mappings (of so many KiB) now fault one page at a time.
        case disabled(mappings: Int, kib: Int)
        /// The kernel refused the descriptor or a registration: the errno, and which step.
        case unavailable(step: String, errno: Int32)

        public var description: String {
            switch self {
            case .disabled(let mappings, let kib):
                "fault-around off for \(mappings) clean file mappings (\(kib / 1024) MB)"
            case .unavailable(let step, let error):
                "fault-around stays on: \(step) failed: \(String(cString: strerror(error)))"
            }
        }
    }

    /// ``disable(smapsPath:)``, said once in the log: `info` when done, `notice` when the kernel
    /// or the service's system call filter refused (the daemon then uses more memory, nothing else).
    public static func disable(logger: Logger) {
        let outcome = disable()
        switch outcome {
        case .disabled: logger.info("memory: \(outcome)")
        case .unavailable: logger.notice("memory: \(outcome)")
        }
    }

    /// Registers the clean executable and read-only file mappings of `/proc/self/smaps` (the
    /// ones ``StartupPages`` releases) with a new write-protect userfaultfd.
    public static func disable(smapsPath: String = "/proc/self/smaps") -> Outcome {
        guard let bytes = StartupPages.readFile(smapsPath) else { return .unavailable(step: "reading \(smapsPath)", errno: ENOENT) }
        let descriptor: Int32
        switch openDescriptor() {
        case .success(let opened): descriptor = opened
        case .failure(let error): return .unavailable(step: "userfaultfd", errno: error.code)
        }
        var mappings = 0
        var kib = 0
        var refused: Int32 = 0
        for mapping in StartupPages.candidates(smaps: bytes, readOnlyData: true) {
            let length = Int(mapping.end - mapping.start)
            if let error = register(descriptor, start: mapping.start, length: length) {
                refused = error.code
                continue
            }
            mappings += 1
            kib += length / 1024
        }
        guard mappings > 0 else {
            close(descriptor)
            return .unavailable(step: "UFFDIO_REGISTER", errno: refused == 0 ? ENOENT : refused)
        }
        // Deliberately never closed (see above).
        return .disabled(mappings: mappings, kib: kib)
    }

    /// An errno from the kernel.
    struct KernelError: Error, Equatable {
        var code: Int32
    }

    /// A userfaultfd for user-mode faults, negotiated for asynchronous write-protect.
    static func openDescriptor() -> Result<Int32, KernelError> {
        let result = cfaultaround_open()
        return result >= 0 ? .success(result) : .failure(KernelError(code: -result))
    }

    /// Registers one range (whole mappings, page-aligned) in write-protect mode; nil when done.
    static func register(_ descriptor: Int32, start: UInt, length: Int) -> KernelError? {
        let result = cfaultaround_register(descriptor, start, length)
        return result == 0 ? nil : KernelError(code: -result)
    }
}
