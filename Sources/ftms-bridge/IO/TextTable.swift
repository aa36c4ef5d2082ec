/// Rows as aligned columns for a terminal, the first row being the heading. The last
/// column is left unpadded so lines carry no trailing spaces.
func renderTable(_ rows: [[String]]) -> String {
    let columns = rows.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, text in
            column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
