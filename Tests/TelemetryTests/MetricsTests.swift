import DeterministicRandom
import CoreMetrics
import Foundation
import Telemetry
import Testing

/// The metrics themselves, read back from the exposition text a scrape returns.
@Suite("Daemon metrics")
struct MetricsTests {
    @Test func eventsCountUnderTheirLabels() {
        let metrics = DaemonMetrics(version: "1.2.3")
        for _ in 0..<3 { metrics.notificationReceived(characteristic: "indoor_bike_data") }
        metrics.notificationReceived(characteristic: "rower_data")
        metrics.decodeFailed(characteristic: "rower_data")
        metrics.setMachinesConnected(2)
        metrics.sessionOpened()
        metrics.sessionOpened()
        metrics.sessionFinished(reason: "idle")
        metrics.sessionDropped(reason: "too_short")
        metrics.setQueueDepth(pending: 4, uploaded: 10, dead: 1)
        metrics.setOldestPendingAge(.milliseconds(90_500))
        metrics.uploadRun(result: "retry")
        metrics.uploadedSessions(accepted: 5, duplicates: 1, retried: 2, dead: 0)
        metrics.tokenRefreshed(result: "success")
        metrics.controlCommand("set_resistance", result: "ok")
        metrics.controlCommand("set_target_resistance_level", result: "ok")
        metrics.controlCommand("start_or_resume", result: "refused")
        metrics.setMetricsSocketReaders(3)
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        let expected: [String: Double] = [
            #"ftms_bridge_build_info{version="1.2.3"}"#: 1,
            "ftms_bridge_machines_connected": 2,
            #"ftms_bridge_notifications_total{characteristic="indoor_bike_data"}"#: 3,
            #"ftms_bridge_notifications_total{characteristic="rower_data"}"#: 1,
            #"ftms_bridge_notifications_total{characteristic="fitness_machine_status"}"#: 0,
            #"ftms_bridge_decode_errors_total{characteristic="rower_data"}"#: 1,
            "ftms_bridge_sessions_opened_total": 2,
            #"ftms_bridge_sessions_finished_total{reason="idle"}"#: 1,
            #"ftms_bridge_sessions_finished_total{reason="disconnected"}"#: 0,
            #"ftms_bridge_sessions_dropped_total{reason="too_short"}"#: 1,
            #"ftms_bridge_queue_sessions{state="pending"}"#: 4,
            #"ftms_bridge_queue_sessions{state="uploaded"}"#: 10,
            #"ftms_bridge_queue_sessions{state="dead"}"#: 1,
            "ftms_bridge_queue_oldest_pending_age_seconds": 90.5,
            #"ftms_bridge_upload_runs_total{result="retry"}"#: 1,
            #"ftms_bridge_upload_runs_total{result="settled"}"#: 0,
            #"ftms_bridge_upload_sessions_total{result="accepted"}"#: 5,
            #"ftms_bridge_upload_sessions_total{result="duplicate"}"#: 1,
            #"ftms_bridge_upload_sessions_total{result="retried"}"#: 2,
            #"ftms_bridge_upload_sessions_total{result="dead"}"#: 0,
            #"ftms_bridge_token_refreshes_total{result="success"}"#: 1,
            #"ftms_bridge_control_commands_total{command="set_resistance",result="ok"}"#: 2,
            #"ftms_bridge_control_commands_total{command="start",result="refused"}"#: 1,
            #"ftms_bridge_control_commands_total{command="start",result="error"}"#: 0,
            "ftms_bridge_metrics_socket_readers": 3,
        ]
        for (series, value) in expected {
            #expect(values[series] == value, "\(series)")
        }
    }

    /// No input grows the series count: unknown values are `other`.
    @Test func labelsStayBounded() {
        let metrics = DaemonMetrics(version: "x")
        let before = samples(String(decoding: metrics.exposition(), as: UTF8.self)).count
        var random = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let junk = String(decoding: random.bytes(count: Int.random(in: 0...20, using: &random)), as: UTF8.self)
            metrics.notificationReceived(characteristic: junk)
            metrics.decodeFailed(characteristic: junk)
            metrics.sessionFinished(reason: junk)
            metrics.sessionDropped(reason: junk)
            metrics.uploadRun(result: junk)
            metrics.tokenRefreshed(result: junk)
            metrics.controlCommand(junk, result: junk)
        }
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values.count == before)
        #expect(values[#"ftms_bridge_notifications_total{characteristic="other"}"#] == 500)
        #expect(values[#"ftms_bridge_control_commands_total{command="other",result="other"}"#] == 500)
    }

    /// A resolved notification counter counts into the same series as `notificationReceived`,
    /// and a name not on the list into `other`, growing nothing.
    @Test func notificationCounterHandlesShareTheSeries() {
        let metrics = DaemonMetrics(version: "x")
        let before = samples(String(decoding: metrics.exposition(), as: UTF8.self)).count
        let bike = metrics.notificationCounter(characteristic: "indoor_bike_data")
        let junk = metrics.notificationCounter(characteristic: "indoor_bike_data ")
        for _ in 0..<7 { bike.increment() }
        metrics.notificationReceived(characteristic: "indoor_bike_data")
        for _ in 0..<3 { junk.increment() }
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values.count == before)
        #expect(values[#"ftms_bridge_notifications_total{characteristic="indoor_bike_data"}"#] == 8)
        #expect(values[#"ftms_bridge_notifications_total{characteristic="other"}"#] == 3)
        #expect(values[#"ftms_bridge_notifications_total{characteristic="rower_data"}"#] == 0)
    }

    /// Gauges never go negative and counters never go back, whatever they are given.
    @Test func nonsenseInputsAreClamped() {
        let metrics = DaemonMetrics(version: "x")
        metrics.setMachinesConnected(-4)
        metrics.setQueueDepth(pending: -1, uploaded: -2, dead: -3)
        metrics.setOldestPendingAge(.seconds(-5))
        metrics.uploadedSessions(accepted: -5, duplicates: 0, retried: 0, dead: 0)
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values["ftms_bridge_machines_connected"] == 0)
        #expect(values[#"ftms_bridge_queue_sessions{state="pending"}"#] == 0)
        #expect(values["ftms_bridge_queue_oldest_pending_age_seconds"] == 0)
        #expect(values[#"ftms_bridge_upload_sessions_total{result="accepted"}"#] == 0)
        metrics.setOldestPendingAge(nil)
        #expect(samples(String(decoding: metrics.exposition(), as: UTF8.self))["ftms_bridge_queue_oldest_pending_age_seconds"] == 0)
    }

    /// The metrics socket keeps running totals; the counters advance by their differences.
    @Test func metricsSocketTotalsBecomeCounters() {
        let metrics = DaemonMetrics(version: "x")
        metrics.observeMetricsSocket(readers: 2, messagesDropped: 10, readersDisconnected: 1)
        metrics.observeMetricsSocket(readers: 5, messagesDropped: 25, readersDisconnected: 1)
        // The server restarted: its totals began again at 0.
        metrics.observeMetricsSocket(readers: 1, messagesDropped: 4, readersDisconnected: 0)
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values["ftms_bridge_metrics_socket_readers"] == 1)
        #expect(values["ftms_bridge_metrics_socket_messages_dropped_total"] == 29)
        #expect(values["ftms_bridge_metrics_socket_readers_disconnected_total"] == 1)
    }

    /// The store's gauges, as the daemon's store watch sets them.
    @Test func theStoreGauges() {
        let metrics = DaemonMetrics(version: "x")
        var values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values["ftms_bridge_store_writable"] == 0 && values["ftms_bridge_store_held_sessions"] == 0)
        metrics.observeStore(writable: false, freeBytes: 0, heldSessions: 2, damagedFiles: 1)
        values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values["ftms_bridge_store_writable"] == 0)
        #expect(values["ftms_bridge_store_free_bytes"] == 0)
        #expect(values["ftms_bridge_store_held_sessions"] == 2)
        #expect(values["ftms_bridge_store_damaged_files"] == 1)
        #expect(values["ftms_bridge_store_in_memory"] == 0)
        metrics.observeStore(writable: false, freeBytes: 0, heldSessions: 0, damagedFiles: 0, inMemory: true)
        #expect(samples(String(decoding: metrics.exposition(), as: UTF8.self))["ftms_bridge_store_in_memory"] == 1)
        metrics.observeStore(writable: true, freeBytes: 123_456_789, heldSessions: 0, damagedFiles: 0)
        values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values["ftms_bridge_store_in_memory"] == 0)
        #expect(values["ftms_bridge_store_writable"] == 1)
        #expect(values["ftms_bridge_store_free_bytes"] == 123_456_789)
        #expect(values["ftms_bridge_store_held_sessions"] == 0)
    }

    /// Two instances share nothing: no global registry, no bootstrap.
    @Test func instancesAreIndependent() {
        let a = DaemonMetrics(version: "a")
        let b = DaemonMetrics(version: "b")
        a.sessionOpened()
        #expect(samples(String(decoding: a.exposition(), as: UTF8.self))["ftms_bridge_sessions_opened_total"] == 1)
        #expect(samples(String(decoding: b.exposition(), as: UTF8.self))["ftms_bridge_sessions_opened_total"] == 0)
    }

    /// swift-metrics' API with an explicit factory lands on the same registry.
    @Test func swiftMetricsThroughTheExplicitFactory() {
        let metrics = DaemonMetrics(version: "x")
        let counter = CoreMetrics.Counter(label: "ftms_bridge_test_events_total", dimensions: [("kind", "a")], factory: metrics.factory)
        counter.increment(by: 7)
        let values = samples(String(decoding: metrics.exposition(), as: UTF8.self))
        #expect(values[#"ftms_bridge_test_events_total{kind="a"}"#] == 7)
    }

    /// Prometheus conventions: one prefix, counters end in `_total`, a HELP for each.
    @Test func namesFollowTheConventions() {
        let text = String(decoding: DaemonMetrics(version: "x").exposition(), as: UTF8.self)
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ") }
        #expect(types.count == 21)
        for type in types {
            let (name, kind) = (type[2], type[3])
            #expect(name.hasPrefix("ftms_bridge_"))
            #expect((kind == "counter") == name.hasSuffix("_total"), "\(name)")
            #expect(text.contains("# HELP \(name) "), "\(name)")
        }
    }

    /// `docs/prometheus.md` lists every metric with its type.
    @Test func theDocsListEveryMetric() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/prometheus.md"), encoding: .utf8)
        let text = String(decoding: DaemonMetrics(version: "x").exposition(), as: UTF8.self)
        for type in text.split(separator: "\n").filter({ $0.hasPrefix("# TYPE ") }).map({ $0.split(separator: " ") }) {
            #expect(docs.contains("| `\(type[2])` | \(type[3]) |"), "\(type[2])")
        }
    }
}
