import TestSupport
import Doctor
import Foundation
import Testing

/// The report's two forms and its exit status.
@Suite("Report output")
struct ReportTests {
    static let sample = DoctorReport(version: "1.2.3", checks: [
        CheckResult(id: "config", title: "Config", status: .warning, detail: "x does not exist: defaults in use", hint: "fine", data: ["exists": false]),
        CheckResult(id: "dbus", title: "System bus", status: .ok, detail: "connected\nas :1.2", data: ["nested": ["a": [1, "b", .null]]]),
        CheckResult(id: "bluez", title: "BlueZ", status: .failed, detail: "nobody owns org.bluez", hint: "start it"),
        CheckResult.skipped(id: "adapters", title: "Adapters", because: "needs BlueZ"),
    ])

    @Test func textHasOneTaggedLinePerCheckAndIndentedHints() {
        #expect(Self.sample.text == """
            ftms-bridge doctor 1.2.3
            [WARN] Config: x does not exist: defaults in use
                   -> fine
            [ OK ] System bus: connected; as :1.2
            [FAIL] BlueZ: nobody owns org.bluez
                   -> start it
            [SKIP] Adapters: needs BlueZ

            1 ok, 1 warning, 1 failed, 1 skipped
            """)
    }

    @Test func jsonHasTheDocumentedFields() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.sample.json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["version", "checks", "summary"])
        #expect(object["version"] as? String == "1.2.3")
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary == ["ok": 1, "warning": 1, "failed": 1, "skipped": 1])
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["id"] as? String } == ["config", "dbus", "bluez", "adapters"])
        for check in checks { #expect(Set(check.keys) == ["id", "title", "status", "detail", "data"]) }
        #expect(checks.map { $0["status"] as? String } == ["warning", "ok", "failed", "skipped"])
        let config = try #require(checks[0]["data"] as? [String: Any])
        #expect(config["exists"] as? Bool == false)
        #expect(config["hint"] as? String == "fine")
        let nested = try #require((checks[1]["data"] as? [String: Any])?["nested"] as? [String: Any])
        #expect((nested["a"] as? [Any])?.count == 3)
        #expect(!Self.sample.json.contains("\n"))
    }

    @Test func exitStatusIsOneOnlyWhenSomethingFailed() {
        #expect(Self.sample.exitStatus == 1)
        let fine = DoctorReport(version: "1", checks: Self.sample.checks.filter { $0.status != .failed })
        #expect(fine.exitStatus == 0)
        #expect(fine.summary[.failed] == 0)
    }

    @Test func aWholeRunIsValidJSONWithEveryCheckInOrder() async throws {
        let directory = try TemporaryDirectory()
        let report = await Doctor(inputs: .isolated(in: directory)).run()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        let ids = try #require((object["checks"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
        #expect(ids == [
            "config", "kernel", "dbus", "bluez", "bluetoothd-restart", "adapters", "dbus-policy", "state-dir", "database", "login",
            "metrics-socket", "control-socket", "backend", "mqtt",
        ])
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary.values.reduce(0, +) == ids.count)
        #expect(report.text.split(separator: "\n").first == "ftms-bridge doctor 9.9.9-test")
    }
}
