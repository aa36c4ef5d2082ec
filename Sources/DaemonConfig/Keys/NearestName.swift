/// "did you mean …?" for an unknown key: the known name a typo or a camelCase spelling most
/// likely meant, when one is close enough to be worth saying.
enum NearestName {
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let wanted = folded(name)
        if let exact = candidates.first(where: { folded($0) == wanted }) { return exact }
        let limit = name.count <= 4 ? 1 : 2
        let scored = candidates.map { ($0, distance(Array(wanted), Array(folded($0)))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// acceptGenericFTMS, accept-generic-ftms and accept_generic_ftms are the same key to a person.
    private static func folded(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Levenshtein distance, on names short enough for the quadratic table to be nothing.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard a.count <= 64, b.count <= 64 else { return Int.max }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
