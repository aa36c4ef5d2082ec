public import CivilTime
public import FoundationEssentials

/// The one calendar day is ``CivilTime``'s; the stats name it from here.
public typealias LocalDate = CivilTime.LocalDate

extension LocalDate {
    /// The day `time` falls on in `timeZone`, daylight saving included (the offset is the
    /// zone's at that very instant).
    public init(_ time: UTCTime, in timeZone: TimeZone) {
        let seconds = time.secondsSince1970
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        self.init(secondsSince1970: seconds, offset: Int64(offset))
    }
}
