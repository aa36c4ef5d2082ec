// The NIO floor: the least CPU a reader built on SwiftNIO spends per AcquireNotify datagram,
// the parts the daemon must use and nothing of ours (docs/performance.md, "The floors").
//
// The bare C reader (scripts/lib/acquire-floor.c) is the floor any gateway has; this one is the
// floor a gateway written with NIO has, so that bench-notify.py can say how much of the daemon's
// cost over the C reader is the framework's and how much is ours. It reads as the daemon does:
// one event loop, one `NIOPipeBootstrap` channel per datagram socket taking ownership of it with
// a fixed 513-byte receive allocator (EventLoopDatagramReader), and a 300-byte `writeAndFlush`
// per datagram to the subscriber's Unix stream socket, a connected NIO socket channel (as the
// metrics socket's accepted readers are). `--job` adds the daemon's hop into Swift Concurrency:
// each datagram is yielded into an `AsyncStream` that one task consumes and writes from, with
// NIO's singleton loop installed as the global executor (FTMSBridged.adoptEventLoopExecutor),
// so the task runs on the loop that read the datagram. The line written (spaces) is the same
// buffer every time: building it is ours, not the framework's.
//
// Run by acquire-floor's --reader-exec, which makes the sockets, plays bluetoothd and the
// subscriber, and passes the descriptors (inherited) and its own arguments:
//
//   nio-floor [--job] --machines N --rate HZ --duration S --line-bytes B [--spread] [--publish]
//             --inputs FD,FD,... [--output FD]
//
// After two seconds of warm-up it measures for S seconds: the process's CPU
// (CLOCK_PROCESS_CPUTIME_ID, every thread, in ns), its voluntary context switches (getrusage,
// every thread), and the datagrams read; then prints the C reader's result line and exits.
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// What acquire-floor passes, and `--job`.
struct Options {
    var job = false
    var machines = 0
    var rate = 0
    var duration = 0
    var lineBytes = 0
    var spread = false
    var publish = false
    var inputs: [CInt] = []
    var output: CInt?

    init(_ arguments: ArraySlice<String>) throws(UsageError) {
        var iterator = arguments.makeIterator()
        func number(_ flag: String) throws(UsageError) -> Int {
            guard let text = iterator.next(), let value = Int(text), value >= 0 else { throw UsageError("\(flag) needs a number") }
            return value
        }
        while let flag = iterator.next() {
            switch flag {
            case "--job": job = true
            case "--spread": spread = true
            case "--publish": publish = true
            case "--machines": machines = try number(flag)
            case "--rate": rate = try number(flag)
            case "--duration": duration = try number(flag)
            case "--line-bytes": lineBytes = try number(flag)
            case "--output": output = CInt(try number(flag))
            case "--inputs":
                guard let text = iterator.next() else { throw UsageError("--inputs needs descriptors") }
                let parsed = text.split(separator: ",").compactMap { CInt($0) }
                guard !parsed.isEmpty, parsed.count == text.split(separator: ",").count else { throw UsageError("--inputs: bad list \(text)") }
                inputs = parsed
            default: throw UsageError("unknown argument \(flag)")
            }
        }
        guard !inputs.isEmpty, duration > 0 else { throw UsageError("--inputs and --duration are needed") }
        guard !publish || output != nil else { throw UsageError("--publish needs --output") }
    }
}

/// A bad command line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Hands each datagram its channel reads to `deliver`, on the loop.
final class FloorReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let deliver: @Sendable (ByteBuffer) -> Void

    init(deliver: @escaping @Sendable (ByteBuffer) -> Void) {
        self.deliver = deliver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deliver(unwrapInboundIn(data))
    }
}

/// CPU, wake-ups and datagrams at one instant.
struct Reading {
    let cpu: Double
    let wall: Double
    let switches: Int
    let received: Int
}

@main
enum NIOFloor {
    static func main() {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            complain("\(error.message)\nusage: nio-floor [--job] --machines N --rate HZ --duration S --line-bytes B "
                + "[--spread] [--publish] --inputs FD,... [--output FD]")
            exit(2)
        }
        do {
            try run(options)
        } catch {
            complain("\(error)")
            exit(1)
        }
    }

    static func run(_ options: Options) throws {
        let loop: any EventLoop
        if options.job {
            // As the daemon does before anything else: one loop, and Swift Concurrency's jobs on it.
            NIOSingletons.groupLoopCountSuggestion = 1
            guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
                complain("cannot install NIO's loop as the global executor")
                exit(1)
            }
            loop = MultiThreadedEventLoopGroup.singleton.next()
        } else {
            loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
        }
        let received = NIOLoopBoundBox.makeBoxSendingValue(0, as: Int.self, eventLoop: loop)
        let line = ByteBuffer(repeating: UInt8(ascii: " "), count: max(options.lineBytes, 1))
        let output: (any Channel)? = try options.output.map { try ClientBootstrap(group: loop).withConnectedSocket($0).wait() }

        let deliver: @Sendable (ByteBuffer) -> Void
        if options.job {
            let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
            // Detached: on the global executor, which is the loop (never the main actor's thread, asleep below).
            Task.detached {
                for await _ in stream {
                    output?.writeAndFlush(line, promise: nil)
                }
            }
            deliver = { datagram in
                received.value += 1
                continuation.yield(datagram)
            }
        } else {
            deliver = { _ in
                received.value += 1
                output?.writeAndFlush(line, promise: nil)
            }
        }
        for descriptor in options.inputs {
            _ = try NIOPipeBootstrap(group: loop)
                .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 513))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(FloorReader(deliver: deliver))
                    }
                }
                .takingOwnershipOfDescriptor(input: descriptor)
                .wait()
        }

        func reading() throws -> Reading {
            let count = try loop.submit { received.value }.wait()
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Reading(
                cpu: seconds(CLOCK_PROCESS_CPUTIME_ID), wall: seconds(CLOCK_MONOTONIC), switches: usage.ru_nvcsw, received: count)
        }
        sleep(seconds: 2)
        let first = try reading()
        sleep(seconds: Double(options.duration))
        let last = try reading()

        let got = last.received - first.received, wakes = last.switches - first.switches
        let cpu = last.cpu - first.cpu, wall = last.wall - first.wall
        let mode = (options.spread ? "spread" : "bunched") + (options.publish ? " +publish" : "")
        let values: [any CVarArg] = [
            options.machines, options.rate, got, wall, 100 * cpu / wall, 1e6 * cpu / Double(max(got, 1)),
            Double(wakes) / Double(max(got, 1)), 1e6 * cpu / Double(max(wakes, 1)),
        ]
        _ = withVaList(values) {
            vprintf(
                "machines %ld rate %ld \(mode): %ld notifications in %.1f s, reader CPU %.4f %% of a core, %.2f us per notification, "
                    + "%.2f wake-ups per notification, %.1f us per wake-up\n", $0)
        }
        fflush(nil)
        // The loop and the sockets end with the process; acquire-floor then stops the writer and subscriber.
        exit(0)
    }

    /// Says `text` on standard error (stdio's `stderr` is shared mutable state to Swift 6).
    static func complain(_ text: String) {
        let line = Array("nio-floor: \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Sleeps the main thread (not the loop) for `duration` seconds, through interruptions.
    static func sleep(seconds duration: Double) {
        var until = timespec()
        clock_gettime(CLOCK_MONOTONIC, &until)
        let end = Double(until.tv_sec) + Double(until.tv_nsec) / 1e9 + duration
        until.tv_sec = Int(end)
        until.tv_nsec = Int((end - Double(Int(end))) * 1e9)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
    }
}
