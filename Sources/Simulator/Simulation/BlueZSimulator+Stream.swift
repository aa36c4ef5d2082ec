import FTMS

/// The rider model's frames, notified at the machine's rate while a client is subscribed.
extension BlueZSimulator {
    /// (Re)starts the frame clock of a resolved link. Deadlines, not sleeps between frames,
    /// so the rate does not drift with load.
    func startStreaming(_ device: DeviceState) {
        device.streamTask?.cancel()
        device.streamTask = nil
        guard device.connected, device.spec.streamRate > 0, device.spec.kind.hasGatt else { return }
        let interval = Duration.seconds(1 / device.spec.streamRate)
        let path = device.path
        let link = device.link
        let generation = generation
        let start = firstDeadline(of: device.spec, interval: interval) - interval
        device.streamTask = Task { [weak self] in
            var deadline = start
            while !Task.isCancelled {
                deadline += interval
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled, let self,
                    await self.streamTick(path, link: link, generation: generation, interval: interval)
                else { return }
            }
        }
    }

    /// When a stream's first frame is due: one interval from now, or with
    /// ``SimulatorConfiguration/spreadPhases`` the next instant at the machine's own phase
    /// (the i-th of n streaming machines at i/n of an interval after ``phaseEpoch``).
    func firstDeadline(of spec: MachineSpec, interval: Duration) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let streaming = configuration.machines.filter { $0.streamRate > 0 && $0.kind.hasGatt }
        guard configuration.spreadPhases, let index = streaming.firstIndex(where: { $0.address == spec.address }) else {
            return now + interval
        }
        let phase = phaseEpoch + interval * (Double(index) / Double(streaming.count))
        let periods = max(0, ((now - phase) / interval).rounded(.down) + 1)
        return phase + interval * periods
    }

    /// One frame, if a client listens; false ends the stream (link gone, source exhausted).
    private func streamTick(_ path: String, link: Int, generation: Int, interval: Duration) -> Bool {
        guard generation == self.generation, let device = devices[path], device.connected, device.link == link else { return false }
        defer { flush() }
        guard let data = device.characteristic(device.source.characteristic.rawValue), data.hasActiveSession else { return true }
        guard let frame = nextFrame(device, interval: interval) else {
            log("data source of \(device.spec.name) ended")
            return false
        }
        deliver(data, frame)
        device.framesThisLink += 1
        if configuration.verbose { log("frame \(device.spec.name) \(Hex.string(frame))") }
        if let frames = device.loseControlAfterFrames, device.framesThisLink == frames { loseControl(device) }
        if let frames = device.dropAfterFrames, device.framesThisLink >= frames {
            linkDown(device, reason: "link lost after \(frames) frames (injected)")
            return false
        }
        return true
    }

    /// The machine's next frame: from the shared air when there is one (one rider, whichever
    /// central listens), else from this device's own source.
    private func nextFrame(_ device: DeviceState, interval: Duration) -> [UInt8]? {
        let now = ContinuousClock.now
        if let air {
            return air.nextFrame(device.spec.address, after: interval, ridersRideOn: configuration.ridersRideOn, now: now)
        }
        var interval = interval
        if configuration.ridersRideOn, let last = device.lastFrameAt, now - last > interval * 2 {
            // The rider rode on while nobody listened (a new link, or a client that froze or
            // died and subscribed again): this frame covers it (at most an hour).
            interval = min(now - last, .seconds(3600))
        }
        device.lastFrameAt = now
        return device.source.nextFrame(after: interval)
    }
}
