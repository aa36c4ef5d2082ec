/// Anything that yields a capture's events in order: what replay consumes, whatever the file
/// format.
public protocol CaptureEventSource: Sendable {
    /// What is known about the machine so far.
    var header: CaptureHeader { get }
    /// What is known about the machine once the whole capture has been read. A btsnoop capture
    /// reveals its machine as it goes (the name in advertising, Device Information in reads);
    /// an `.ftmscap` header says it all up front.
    func completeHeader() -> CaptureHeader
    /// The next event, `nil` at the end, or the error that ended the read (once; `nil` after).
    mutating func next() throws(CaptureError) -> CaptureEvent?
}

extension BtsnoopReader: CaptureEventSource {}

extension FtmscapReader: CaptureEventSource {
    public func completeHeader() -> CaptureHeader { header }
}

/// Opens bytes in whichever format they are (``CaptureFormat/init(detecting:)``).
public func captureReader(
    for bytes: [UInt8], options: BtsnoopOptions = BtsnoopOptions()
) throws(CaptureError) -> any CaptureEventSource {
    switch CaptureFormat(detecting: bytes) {
    case .btsnoop: try BtsnoopReader(bytes: bytes, options: options)
    case .ftmscap: try FtmscapReader(bytes: bytes)
    }
}
