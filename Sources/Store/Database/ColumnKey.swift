import GRDB

/// A record's `CodingKeys`, naming its table's columns: Codable writes and reads the row by
/// them, and the query interface takes them as the record's columns (`typealias Columns =
/// CodingKeys`, so `filter { $0.sessionID == id }`). Each table's columns are named once,
/// beside its record, instead of once in the coding keys and again in a `Columns` enum.
protocol ColumnKey: CodingKey, ColumnExpression {}

extension ColumnKey {
    var name: String { stringValue }
}
