extension [UInt8] {
    /// `withUnsafeBytes` for bodies with typed throws: the readers' errors stay
    /// ``CaptureError`` all the way out, with no `any Error` to cast back.
    func withBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(CaptureError) -> Result
    ) throws(CaptureError) -> Result {
        let outcome: Swift.Result<Result, CaptureError> = withUnsafeBytes { bytes in
            Swift.Result { () throws(CaptureError) in try body(bytes) }
        }
        return try outcome.get()
    }
}
