import ArgumentParser
import FTMS

/// Parses a CHARACTERISTIC argument (contract §9) with a one-line reason on failure.
func parseCharacteristic(_ text: String) throws -> Characteristic {
    guard let characteristic = Characteristic(parsing: text) else {
        let known = Characteristic.allCases.map(\.argumentName).joined(separator: ", ")
        throw ValidationError("unknown characteristic '\(text)'; use a 16-bit UUID such as 2ad2 or one of: \(known)")
    }
    return characteristic
}
