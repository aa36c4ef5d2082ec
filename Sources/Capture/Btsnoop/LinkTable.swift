/// The links a capture has open, found by a linear scan.
///
/// A capture holds a handful of links, so scanning a short array (starting from the last one
/// found, which is nearly always the next one asked for) beats hashing on every packet, and
/// links are mutated in place rather than copied in and out of a dictionary.
struct LinkTable {
    private var ids: [LinkID] = []
    private var links: [GATTLink] = []
    private var last = 0

    mutating func index(of id: LinkID) -> Int? {
        if last < ids.count, ids[last] == id { return last }
        guard let found = ids.firstIndex(of: id) else { return nil }
        last = found
        return found
    }

    /// Adds a link seen for the first time; returns its index.
    mutating func add(_ id: LinkID, _ link: GATTLink) -> Int {
        ids.append(id)
        links.append(link)
        last = ids.count - 1
        return last
    }

    /// Starts a link afresh (a new connection on a reused handle).
    mutating func replace(_ id: LinkID, with link: GATTLink) {
        if let found = index(of: id) {
            links[found] = link
        } else {
            ids.append(id)
            links.append(link)
        }
    }

    mutating func remove(_ id: LinkID) -> GATTLink? {
        guard let found = index(of: id) else { return nil }
        ids.remove(at: found)
        last = 0
        return links.remove(at: found)
    }

    var indices: Range<Int> { links.indices }

    func id(at index: Int) -> LinkID { ids[index] }

    /// Borrowed and mutated in place: a link holds arrays, and copying it out per packet
    /// would cost a retain and release of each.
    subscript(index: Int) -> GATTLink {
        _read { yield links[index] }
        _modify { yield &links[index] }
    }
}
