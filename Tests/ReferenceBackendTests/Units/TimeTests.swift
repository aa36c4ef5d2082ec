import Testing
@testable import ReferenceBackend

@Suite("ISO 8601 times and calendar days")
struct TimeTests {
    @Test("known instants, with zones and fractions")
    func knownInstants() throws {
        #expect(try #require(ISO8601Time("1970-01-01T00:00:00Z")).secondsSince1970 == 0)
        #expect(try #require(ISO8601Time("2025-12-24T07:30:00Z")).secondsSince1970 == 1_766_561_400)
        #expect(try #require(ISO8601Time("2025-12-24T08:30:00+01:00")).secondsSince1970 == 1_766_561_400)
        #expect(try #require(ISO8601Time("2025-12-24T02:00:00-0530")).secondsSince1970 == 1_766_561_400)
        #expect(try #require(ISO8601Time("2025-12-24t07:30:00.250z")).secondsSince1970 == 1_766_561_400.25)
        #expect(try #require(ISO8601Time("1969-12-31T23:59:59.5Z")).secondsSince1970 == -0.5)
        #expect(try #require(ISO8601Time("2024-02-29T12:00:00Z")).secondsSince1970 == 1_709_208_000)
    }

    @Test(
        "refused: no zone, impossible dates and times, junk",
        arguments: [
            "2025-12-24T07:30:00", "2025-12-24 07:30:00Z", "2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z",
            "2025-12-24T24:00:00Z", "2025-12-24T07:60:00Z", "2025-12-24T07:30:00.Z", "2025-12-24T07:30:00+25:00",
            "2025-12-24", "", "yesterday", "2025-12-24T07:30:00Zjunk",
        ])
    func refused(text: String) {
        #expect(ISO8601Time(text) == nil)
    }

    @Test("civil days: known answers and formatting")
    func civilDays() throws {
        #expect(try #require(CivilDay("1970-01-01")).number == 0)
        #expect(try #require(CivilDay("2000-03-01")).number == 11_017)
        #expect(try #require(CivilDay("1969-12-31")).number == -1)
        #expect(CivilDay(number: 20_446).description == "2025-12-24")
        #expect(CivilDay("2025-02-29") == nil)
        #expect(CivilDay("2025-1-01") == nil)
        #expect(CivilDay(secondsSince1970: -1, offset: 0).number == -1)
        #expect(CivilDay(secondsSince1970: 1_766_620_800 - 1, offset: 3600).description == "2025-12-25")
        #expect(ISO8601Time.format(secondsSince1970: 1_766_561_400) == "2025-12-24T07:30:00Z")
    }

    @Test("day number → text → day number is the identity from 1600 to 2400")
    func civilDayProperty() throws {
        var number: Int64 = -135_140  // 1600-01-01
        while number < 157_000 {  // past 2399-12-31
            let day = CivilDay(number: number)
            #expect(CivilDay(day.description) == day)
            number += 7
        }
    }
}
