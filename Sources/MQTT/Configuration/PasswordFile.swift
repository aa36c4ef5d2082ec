#if canImport(Glibc)
import ProcessOutput
import Glibc
#endif

/// `[mqtt] password_file`: the password's first line, from a regular file nobody but its
/// owner can read (mode 0600 or stricter), so it is never in the config, on a command line or
/// in a log. Errors name the file, never its contents. Shared by the daemon and `doctor`.
public enum PasswordFile {
    public static func read(_ path: String) throws(MQTTConfigurationError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .invalid("\(path): \(errnoText(errno))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .invalid("\(path): not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw .invalid("\(path): mode \(String(info.st_mode & 0o777, radix: 8)) lets others read the password; chmod 600 it")
        }
        guard let file = fopen(path, "r") else { throw .invalid("\(path): \(errnoText(errno))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        while true {
            let character = getc(file)
            if character == EOF || character == 0x0A || bytes.count > 4096 { break }
            bytes.append(UInt8(truncatingIfNeeded: character))
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .invalid("\(path): the first line is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
