import DaemonConfig
import Foundation
import MQTTTesting
import Testing
@testable import Doctor

/// The MQTT broker check against a real mosquitto: accepted, refused login, a group-readable
/// password file, no broker, and TLS.
@Suite("MQTT broker check")
struct BrokerCheckTests {
    func settings(_ broker: PrivateBroker, url: String? = nil, passwordFile: String? = nil) -> DaemonConfig.MQTT {
        var settings = DaemonConfig.MQTT()
        settings.enabled = true
        settings.broker = url ?? broker.url
        settings.username = broker.username
        settings.passwordFile = passwordFile ?? broker.passwordFile
        return settings
    }

    @Test func anAcceptedLoginIsOK() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let result = await BrokerCheck(settings: settings(broker), timeout: .seconds(5)).run()
        #expect(result.status == .ok, "\(result.detail)")
        #expect(result.detail.hasPrefix("\(broker.url) accepts the gateway (logged in as gateway) in "))
        #expect(!result.detail.contains(broker.password))
    }

    @Test func aWrongPasswordFailsWithTheBrokersReason() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        let wrong = broker.directoryPath + "/wrong"
        #expect(FileManager.default.createFile(atPath: wrong, contents: Data("nope\n".utf8), attributes: [.posixPermissions: 0o600]))
        let result = await BrokerCheck(settings: settings(broker, passwordFile: wrong), timeout: .seconds(5)).run()
        #expect(result.status == .failed)
        #expect(result.detail == "\(broker.url): broker refused the connection: not authorised")
        #expect(result.hint?.contains("password_file") == true)
    }

    @Test func aPasswordFileOthersCanReadIsRefusedBeforeConnecting() async throws {
        let broker = try await PrivateBroker()
        defer { broker.stop() }
        chmod(broker.passwordFile, 0o640)
        let result = await BrokerCheck(settings: settings(broker), timeout: .seconds(5)).run()
        #expect(result.status == .failed)
        #expect(result.detail == "\(broker.passwordFile): mode 640 lets others read the password; chmod 600 it")
    }

    @Test func noBrokerAndTLS() async throws {
        let broker = try await PrivateBroker(tls: true)
        defer { broker.stop() }
        var tls = settings(broker, url: broker.tlsURL)
        tls.caFile = try #require(broker.caFile)
        let good = await BrokerCheck(settings: tls, timeout: .seconds(5)).run()
        #expect(good.status == .ok, "\(good.detail)")
        #expect(good.detail.contains("(TLS, logged in as gateway)"))
        await broker.kill()
        let down = await BrokerCheck(settings: settings(broker), timeout: .seconds(5)).run()
        #expect(down.status == .failed)
        #expect(down.detail == "\(broker.url): connection refused", "\(down.detail)")
        let off = await BrokerCheck(settings: DaemonConfig.MQTT(), timeout: .seconds(1)).run()
        #expect(off.status == .skipped)
    }
}
