#if canImport(Glibc)
import Glibc
#endif

/// The process's arguments after its name, for the executables' `main`.
///
/// On Linux, Swift finds `argv` just below `environ` as the kernel laid them out; a preloaded
/// library that calls `setenv` in its constructor moves `environ` to the heap, and
/// `CommandLine.arguments` comes back empty. libfaketime does that (it publishes its shared
/// memory in `FAKETIME_SHARED`), and a daemon that lost `--config` would run on the defaults:
/// the host's state directory and sockets. The kernel's copy in `/proc/self/cmdline` is then
/// what the process was started with.
package enum ProcessArguments {
    package static func current() -> [String] {
        let arguments = CommandLine.arguments
        if !arguments.isEmpty { return Array(arguments.dropFirst()) }
        guard let file = fopen("/proc/self/cmdline", "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // The kernel ends the last argument with a NUL too.
        return Array((fields.last == "" ? fields.dropLast() : fields[...]).dropFirst())
    }
}
