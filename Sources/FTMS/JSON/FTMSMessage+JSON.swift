public import JSON

/// contract §3.1 JSON for decoded values: snake_case, unit-suffixed, scaled, absent fields omitted.
///
/// Writing goes straight into a caller's ``JSONBuffer``, in field order, so the decode CLI and
/// the metrics socket print a record without building a dictionary first.
extension FTMSMessage {
    public func writeJSON(into json: inout JSONBuffer) {
        switch self {
        case .data(let record): record.writeJSON(into: &json)
        case .feature(let feature): feature.writeJSON(into: &json)
        case .status(let status): status.writeJSON(into: &json)
        case .controlPoint(let message): message.writeJSON(into: &json)
        case .trainingStatus(let status): status.writeJSON(into: &json)
        case .range(let range): range.writeJSON(into: &json)
        }
    }

    /// The JSON as a `String`, for tests and logs (allocates).
    public var json: String {
        var buffer = JSONBuffer()
        writeJSON(into: &buffer)
        return buffer.string
    }
}

extension JSONBuffer {
    /// Opens an object with the `characteristic` and `uuid` keys every decoded value carries.
    mutating func openMessage(_ characteristic: Characteristic) {
        append(UInt8(ascii: "{"))
        appendKey("characteristic", first: true)
        appendString(characteristic.jsonName)
        appendKey("uuid")
        appendString(characteristic.shortUUID)
    }

    /// Closes an object after the length findings contract §3 requires to be reported.
    mutating func closeMessage(truncated: Bool, trailingBytes: Int) {
        if truncated {
            appendKey("truncated")
            append("true")
        }
        if trailingBytes > 0 {
            appendKey("trailing_bytes")
            appendInteger(trailingBytes)
        }
        append(UInt8(ascii: "}"))
    }

    mutating func appendField(_ descriptor: FieldDescriptor, raw: Int32) {
        appendKey(descriptor.jsonName)
        if raw == descriptor.notAvailable {
            append("null")
        } else {
            appendFixedPoint(raw, scale: descriptor.scale)
        }
    }

    mutating func appendParameters(_ layout: [ParameterDescriptor], _ values: ParameterValues, from start: Int = 0) {
        for (index, descriptor) in layout.enumerated() {
            guard let raw = values[start + index] else { return }
            if let name = descriptor.naming.name(of: raw) {
                appendKey(descriptor.field.jsonName)
                appendString(name)
            } else {
                appendField(descriptor.field, raw: raw)
            }
        }
    }

    /// Marks a Target Resistance Level carried in the sint16 form some machines need
    /// instead of FTMS 1.0's uint8 (contract §4), so a reader sees the quirk.
    mutating func appendResistanceForm(sint16: Bool) {
        guard sint16 else { return }
        appendKey("parameter_form")
        appendString("sint16" as StaticString)
    }

    mutating func appendNameList(_ key: StaticString, bits: UInt32, names: [StaticString]) {
        appendKey(key)
        // One reservation for the whole list: every name quoted, with its comma.
        var maximum = 2
        for name in names { maximum += name.utf8CodeUnitCount + 3 }
        appendReserved(maximum: maximum) { out in
            out.byte(UInt8(ascii: "["))
            var first = true
            for index in names.indices where bits & (1 << UInt32(index)) != 0 {
                if !first { out.byte(UInt8(ascii: ",")) }
                out.byte(UInt8(ascii: "\""))
                out.text(names[index])
                out.byte(UInt8(ascii: "\""))
                first = false
            }
            out.byte(UInt8(ascii: "]"))
        }
    }
}

extension FitnessMachineFeature {
    public func writeJSON(into json: inout JSONBuffer) {
        json.openMessage(.fitnessMachineFeature)
        // Only the words the value held: a missing word is absent, like a data record's
        // missing field, not an empty list.
        if wordCount >= 1 {
            json.appendNameList("fitness_machine_features", bits: fitnessMachineFeatures, names: Self.fitnessMachineFeatureNames)
        }
        if wordCount >= 2 {
            json.appendNameList("target_setting_features", bits: targetSettingFeatures, names: Self.targetSettingFeatureNames)
        }
        if wordCount >= 1 {
            json.appendKey("fitness_machine_features_raw")
            json.appendInteger(fitnessMachineFeatures)
        }
        if wordCount >= 2 {
            json.appendKey("target_setting_features_raw")
            json.appendInteger(targetSettingFeatures)
        }
        json.closeMessage(truncated: truncated, trailingBytes: trailingBytes)
    }
}

extension FitnessMachineStatus {
    public func writeJSON(into json: inout JSONBuffer) {
        json.openMessage(.fitnessMachineStatus)
        if let rawOpCode {
            json.appendKey("op_code")
            json.appendInteger(rawOpCode)
            json.appendKey("event")
            json.appendString(opCode?.jsonName ?? "reserved")
            json.appendParameters(parameterLayout, parameters)
            json.appendResistanceForm(sint16: opCode == .targetResistanceLevelChanged && parameterBytes >= 2)
        }
        json.closeMessage(truncated: truncated, trailingBytes: trailingBytes)
    }
}

extension ControlPointMessage {
    public func writeJSON(into json: inout JSONBuffer) {
        json.openMessage(.fitnessMachineControlPoint)
        switch self {
        case .empty:
            json.closeMessage(truncated: true, trailingBytes: 0)
        case .request(let request):
            json.appendKey("op_code")
            json.appendInteger(request.rawOpCode)
            json.appendKey("request")
            json.appendString(request.opCode?.jsonName ?? "reserved")
            json.appendParameters(request.parameterLayout, request.parameters)
            json.appendResistanceForm(sint16: request.resistanceForm == .sint16)
            json.closeMessage(truncated: request.truncated, trailingBytes: request.trailingBytes)
        case .response(let response):
            json.appendKey("op_code")
            json.appendInteger(ControlPointOpCode.responseCode.rawValue)
            if let requestOpCode = response.requestOpCode {
                json.appendKey("request_op_code")
                json.appendInteger(requestOpCode)
                json.appendKey("request")
                json.appendString(response.request?.jsonName ?? "reserved")
            }
            if let rawResult = response.rawResult {
                json.appendKey("result_code")
                json.appendInteger(rawResult)
                json.appendKey("result")
                json.appendString(response.result?.jsonName ?? "reserved")
            }
            json.appendParameters(response.parameterLayout, response.parameters)
            json.closeMessage(truncated: response.truncated, trailingBytes: response.trailingBytes)
        }
    }
}

extension TrainingStatus {
    public func writeJSON(into json: inout JSONBuffer) {
        json.openMessage(.trainingStatus)
        if let flags {
            json.appendKey("flags")
            json.appendInteger(flags)
        }
        if let rawStatus {
            json.appendKey("training_status_code")
            json.appendInteger(rawStatus)
            json.appendKey("training_status")
            json.appendString(statusName)
        }
        if let statusString {
            json.appendKey("training_status_string")
            json.appendString(statusString)
        }
        json.closeMessage(truncated: truncated, trailingBytes: trailingBytes)
    }
}

extension SupportedRange {
    public func writeJSON(into json: inout JSONBuffer) {
        json.openMessage(kind.characteristic)
        for (index, descriptor) in kind.layout.enumerated() {
            guard let raw = raws[index] else { break }
            json.appendField(descriptor, raw: raw)
        }
        json.closeMessage(truncated: truncated, trailingBytes: trailingBytes)
    }
}
