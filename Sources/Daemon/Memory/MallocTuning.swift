#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc settings for a daemon that runs for months on a small box.
///
/// By default glibc gives each thread that allocates while another holds the main arena an
/// arena of its own, up to eight per core, each a 64 MB reservation of which what was once
/// touched stays resident; and its trim threshold grows with the largest block ever freed, so
/// after one big upload batch the top of the heap is never given back. The daemon has three
/// threads that allocate (the event loop, the bus thread, the store's queue) and little
/// contention between them, so two arenas are enough, and a fixed threshold keeps trimming
/// at 128 KiB. It must run before the second thread starts: arenas, once made, stay.
///
/// The Glibc module does not export malloc.h, so `mallopt` and `malloc_trim` are looked up in
/// the C library at run time (`dlsym`) and called through C function pointers.
public enum MallocTuning {
    /// glibc's `M_ARENA_MAX` and `M_TRIM_THRESHOLD` (malloc.h).
    static let arenaMaxParameter: Int32 = -8
    static let trimThresholdParameter: Int32 = -1

    private typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrimFunction = @convention(c) (Int) -> Int32

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    private static func mallopt(_ parameter: Int32, _ value: Int32) -> Int32 {
        function("mallopt", as: MalloptFunction.self)?(parameter, value) ?? 0
    }

    private static func malloc_trim(_ pad: Int) -> Int32 {
        function("malloc_trim", as: MallocTrimFunction.self)?(pad) ?? 0
    }

    /// Applies the daemon's settings; returns whether glibc took both.
    @discardableResult
    public static func apply(arenas: Int32 = 2, trimThreshold: Int32 = 128 * 1024) -> Bool {
        mallopt(arenaMaxParameter, arenas) == 1 && mallopt(trimThresholdParameter, trimThreshold) == 1
    }

    /// Gives the free memory of every arena back to the kernel (`malloc_trim(0)`); whether any was.
    @discardableResult
    public static func trim() -> Bool {
        malloc_trim(0) == 1
    }
}
