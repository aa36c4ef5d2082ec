import Foundation

/// `--exit-with-stdin`: the parent holds our stdin's write end; when it goes away (exit,
/// crash, SIGKILL), the read sees end of file and the backend goes too, instead of living on
/// as an orphan holding a port.
enum StdinLifeline {
    static func watch() {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 || (count < 0 && errno != EINTR) { exit(0) }
            }
        }
        thread.name = "stdin-lifeline"
        thread.start()
    }
}
