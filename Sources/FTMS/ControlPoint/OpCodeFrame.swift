/// The op-code-and-parameters shape shared by the Control Point and Status characteristics.
struct OpCodeFrame: Sendable, Equatable {
    var opCode: UInt8?
    var parameters = ParameterValues()
    var truncated = false
    var trailingBytes = 0

    /// Reads the op code, then lets `layout` pick the parameters from the op code and the
    /// number of bytes that follow it.
    init(decoding bytes: UnsafeRawBufferPointer, layout: (UInt8, Int) -> [ParameterDescriptor]) {
        var reader = ByteReader(bytes)
        guard let op = reader.read(.uint8) else {
            truncated = true
            return
        }
        opCode = UInt8(op)
        for descriptor in layout(UInt8(op), reader.remaining) {
            guard let raw = reader.read(descriptor.field.format) else {
                truncated = true
                return
            }
            parameters.append(raw)
        }
        trailingBytes = reader.remaining
    }

    init(opCode: UInt8, parameters: ParameterValues) {
        self.opCode = opCode
        self.parameters = parameters
    }

    func encoded(layout: [ParameterDescriptor]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Int32(opCode ?? 0), as: .uint8)
        for (index, descriptor) in layout.enumerated() {
            writer.write(parameters[index] ?? 0, as: descriptor.field.format)
        }
        return writer.bytes
    }
}
