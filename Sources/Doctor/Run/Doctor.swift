import BlueZ
import Clocks
import DaemonConfig
import Store

/// `ftms-bridge doctor`: every check, in the order an operator reads them (config, then
/// Bluetooth from the kernel up, then the D-Bus policy, the state, the sockets, the backend, the MQTT broker, and with `[fleet]` on the floor).
///
/// The config is read first because it says where everything else is; then the independent
/// groups of probes run side by side, each under its own time limit, so the whole run takes
/// as long as the slowest limit (``DoctorTimeouts``) however much is broken.
package struct Doctor: Sendable {
    package var inputs: DoctorInputs

    package init(inputs: DoctorInputs) {
        self.inputs = inputs
    }

    /// The report, already scrubbed of the stored tokens.
    package func run() async -> DoctorReport {
        let (configResult, config) = ConfigCheck(explicitPath: inputs.configPath, defaultPath: inputs.defaultConfigPath).run()
        let settings = DoctorSettings(config: config, inputs: inputs)
        async let bluetooth = bluetoothChecks(settings)
        async let state = stateChecks(settings)
        async let metrics = SocketCheck(kind: .metrics, settings: settings.config.metricsSocket, timeout: inputs.timeouts.socket).run()
        async let control = SocketCheck(kind: .control, settings: settings.config.controlSocket, timeout: inputs.timeouts.socket).run()
        async let backend = withTimeout(inputs.timeouts.backend + .seconds(1)) { [inputs] in
            await BackendCheck(url: settings.backendURL, source: settings.backendSource, timeout: inputs.timeouts.backend).run()
        } ?? CheckResult(id: BackendCheck.id, title: BackendCheck.title, status: .failed, detail: "no answer from \(settings.backendURL) in time")
        async let broker = BrokerCheck(settings: settings.config.mqtt, timeout: inputs.timeouts.backend).run()
        let policy = PolicyCheck(directories: inputs.policyDirectories, user: inputs.serviceUser, group: inputs.serviceGroup).run()
        let (stateResults, secrets) = await state
        let brokerResult = await broker
        let floor = brokerResult.status == .failed && settings.config.fleet.enabled
            ? [CheckResult.skipped(id: FloorCheck.id, title: FloorCheck.title, because: "no broker (see \(BrokerCheck.id))")]
            : await FloorCheck(config: settings.config, timeout: inputs.timeouts.backend, listen: inputs.timeouts.floorListen).run()
        let checks = [configResult] + (await bluetooth) + [policy] + stateResults + [await metrics, await control, await backend, brokerResult] + floor
        return DoctorReport(version: inputs.version, checks: checks).redacted(by: SecretRedactor(secrets: secrets))
    }

    /// Kernel, bus, BlueZ, then each adapter and the controller behind it.
    private func bluetoothChecks(_ settings: DoctorSettings) async -> [CheckResult] {
        let (kernelResult, support) = KernelCheck(probe: inputs.kernelProbe, sysfs: inputs.bluetoothSysfs).run()
        let snapshot = await BusProbe(address: settings.bus.address, timeout: inputs.timeouts.bus).snapshot()
        let tree: ObjectTree? = if case .reachable(let found) = snapshot { found.tree } else { nil }
        var version: BlueZVersionFinding?
        if case .reachable(let found) = snapshot, found.blueZOwner != nil {
            version = await BlueZVersionFinding.find(candidates: inputs.bluetoothdPaths, tree: tree, timeout: inputs.timeouts.bluetoothdVersion)
        }
        let blueZ = BlueZCheck().result(snapshot, version: version)
        let adapters = tree.map(AdapterFacts.all(in:))
        let adapterCheck = AdapterCheck(configured: settings.config.machines.adapters)
        var results = [kernelResult, BusCheck(choice: settings.bus).result(snapshot), blueZ, BluetoothRestartCheck().result(snapshot)]
        results.append(adapterCheck.overview(adapters, unavailable: "needs BlueZ (see \(blueZ.status == .skipped ? "dbus" : "bluez"))"))
        let controllers = ControllerCheck(
            probe: inputs.controllerProbe, timeout: inputs.timeouts.controller, maxConnected: settings.config.machines.maxConnected)
        for adapter in adapters ?? [] {
            results.append(adapterCheck.result(adapter))
            let limit = inputs.timeouts.controller * 2
            results.append(
                await withTimeout(limit) { await controllers.result(adapter, kernel: support) }
                    ?? CheckResult(
                        id: "controller.\(adapter.name)", title: "Controller \(adapter.name)", status: .warning,
                        detail: "the controller did not answer within \(Seconds.text(limit))"))
        }
        return results
    }

    /// The state directory, the database in it and the login state in the database; and the
    /// tokens, for the redactor.
    private func stateChecks(_ settings: DoctorSettings) async -> ([CheckResult], [String]) {
        let (directoryResult, exists) = StateDirectoryCheck(
            path: settings.stateDirectory, source: settings.stateDirectorySource, serviceUser: inputs.serviceUser).run()
        guard exists else {
            return ([
                directoryResult,
                .skipped(id: DatabaseCheck.id, title: DatabaseCheck.title, because: "no state directory (see state-dir)"),
                .skipped(id: LoginCheck.id, title: LoginCheck.title, because: "no state directory (see state-dir)"),
            ], [])
        }
        let clock = inputs.clock
        let limit = inputs.timeouts.database
        let checked = await withTimeout(limit) {
            let (database, store) = await DatabaseCheck(
                directory: settings.stateDirectory, clock: clock, lowSpaceBytes: Int64(settings.config.state.lowSpaceWarningMiB) << 20).run()
            guard let store else {
                return (database, CheckResult.skipped(id: LoginCheck.id, title: LoginCheck.title, because: "no usable database (see database)"), [String]())
            }
            let (login, secrets) = await LoginCheck(clock: clock).run(store)
            try? store.close()
            return (database, login, secrets)
        }
        let (database, login, secrets) = checked ?? (
            CheckResult(
                id: DatabaseCheck.id, title: DatabaseCheck.title, status: .failed,
                detail: "the database did not open within \(Seconds.text(limit)): another process holds its lock?",
                hint: "see which process holds it: fuser -v \(settings.stateDirectory)/\(GatewayStore.fileName)"),
            CheckResult.skipped(id: LoginCheck.id, title: LoginCheck.title, because: "the database did not open"), [String]()
        )
        return ([directoryResult, database, login], secrets)
    }
}
