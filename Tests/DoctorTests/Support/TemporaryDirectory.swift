import TestSupport
import Foundation

extension TemporaryDirectory {
    /// Writes `text` to `name` inside, making the directories on the way: the checks read
    /// whole trees (a config under etc/, policy files, a fake bluetoothd under bin/).
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
