import AutopilotEmulation
import Flight
import Geodesy
import MAVLink
import Testing

/// The emulator behaves like a real flight controller when asked to: a lagged response, a transport delay, wind and
/// gusts, GPS noise on what it reports.
@Suite("Autopilot emulator: response lag, transport delay, wind, GPS noise")
struct RealismTests {
    static func configuration(_ change: (inout AutopilotEmulator.Configuration) -> Void)
        -> AutopilotEmulator
        .Configuration
    {
        var c = AutopilotEmulator.Configuration()
        change(&c)
        return c
    }

    /// Airborne at 10 m in GUIDED; then a position target 20 m east. Returns the east position 0.3 s and 0.6 s
    /// after it, how far it went past the target, and when it came to rest within 0.2 m of it.
    func stepResponse(responseTime: Double) -> (early: Double, later: Double, overshoot: Double, settled: Double?) {
        var b = Bench(Self.configuration { $0.responseTime = responseTime })
        b.airborne(altitude: 10)
        b.run(for: 2)
        let start = b.now
        b.send(AutopilotEmulationTests.positionTarget(east: 20, north: 0, up: 10))
        b.run(for: 0.3)
        let early = b.emulator.position.x
        b.run(for: 0.3)
        let later = b.emulator.position.x
        var farthest = later
        let settled = b.run(for: 20) {
            farthest = max(farthest, $0.emulator.position.x)
            return abs($0.emulator.position.x - 20) < 0.2 && $0.emulator.velocity.length < 0.05
        }
        return (early, later, farthest - 20, settled.map { $0 - start })
    }

    @Test("response lag: the step response starts later and slower with a 0.4 s time constant, overshoots a little")
    func lag() throws {
        let direct = stepResponse(responseTime: 0)
        let lagged = stepResponse(responseTime: 0.4)
        #expect(lagged.early < 0.5 * direct.early, "\(lagged) vs \(direct)")
        #expect(lagged.later < direct.later - 0.2, "\(lagged) vs \(direct)")
        // The controller's braking does not know the lag: the vehicle runs a little past the target and comes back.
        #expect(direct.overshoot < 0.05 && lagged.overshoot > 0.1 && lagged.overshoot < 2, "\(lagged) vs \(direct)")
        let d = try #require(direct.settled), l = try #require(lagged.settled)
        #expect(l > d && l < d + 5, "settled \(l) s vs \(d) s")
    }

    @Test("transport delay: a command is answered, and a position target flown, only after the delay")
    func transportDelay() {
        var b = Bench(Self.configuration { $0.transportDelay = 0.25 })
        let answer = b.send(
            CommandLong(
                targetSystem: 1, targetComponent: 1, command: .doSetMode, param1: 1, param2: 4))
        #expect(Bench.ack(answer, for: .doSetMode) == nil)
        let sent = b.now
        b.run(for: 0.4) { $0.emulator.modeName == "GUIDED" }
        let acks = b.frames.filter {
            if case .commandAck(let a) = $0.frame.message { return a.command == .doSetMode }
            return false
        }
        #expect(acks.count == 1)
        if let ack = acks.first { #expect(ack.time - sent >= 0.25 && ack.time - sent < 0.27, "\(ack.time - sent)") }
        let modeAt = b.emulator.log.first { $0.event == .modeChanged("GUIDED", reason: "DO_SET_MODE") }?.time
        #expect(modeAt.map { abs($0 - sent - 0.25) < 1e-6 } == true, "\(String(describing: modeAt))")
    }

    /// Airborne in a 3 m/s east wind with gusts; then `steer` for 10 s; returns the horizontal offset from where it
    /// started and the largest one seen.
    func inWind(gusts: Double, steer: (inout Bench) -> Void) -> (offset: Vector3, largest: Double) {
        var b = Bench(
            Self.configuration {
                $0.wind = Vector3(3, 0, 0)
                $0.gustStrength = gusts
                $0.seed = 7
            })
        b.airborne(altitude: 10)
        b.run(for: 5)
        let start = b.emulator.position
        var largest = 0.0
        for _ in 0..<10 {
            steer(&b)
            for _ in 0..<10 {
                b.run(for: 0.1)
                largest = max(largest, (b.emulator.position - start).horizontalLength)
            }
        }
        return ((b.emulator.position - start).horizontal, largest)
    }

    @Test("wind: flying a velocity alone the vehicle drifts downwind; holding a position target it stays")
    func wind() {
        let stop = SetPositionTargetGlobalInt(
            targetSystem: 1, targetComponent: 1, coordinateFrame: .globalRelativeAltInt,
            typeMask: [.xIgnore, .yIgnore, .zIgnore, .axIgnore, .ayIgnore, .azIgnore, .yawIgnore, .yawRateIgnore],
            vx: 0, vy: 0, vz: 0)
        let drifted = inWind(gusts: 0) { $0.send(stop) }
        #expect(drifted.offset.x > 15 && abs(drifted.offset.y) < 0.5, "\(drifted)")
        var here: Vector3?
        let held = inWind(gusts: 0) { b in
            here = here ?? b.emulator.position
            b.send(AutopilotEmulationTests.positionTarget(east: here!.x, north: here!.y, up: 10))
        }
        #expect(held.largest < 0.3, "\(held)")
        let gusty = inWind(gusts: 1.5) { b in
            here = here ?? b.emulator.position
            b.send(AutopilotEmulationTests.positionTarget(east: here!.x, north: here!.y, up: 10))
        }
        // Gusts push it about, the position loop pulls it back.
        #expect(gusty.largest > 0.1 && gusty.largest < 3, "\(gusty)")
        #expect(gusty.offset.length < 2, "\(gusty)")
    }

    @Test("GPS noise: the reported position scatters with mean ≈ 0 and the configured deviation; the true one does not")
    func gpsNoise() {
        var b = Bench(
            Self.configuration {
                $0.gpsNoise = 0.3
                $0.seed = 11
            })
        b.airborne(altitude: 10)
        b.run(for: 3)
        var east: [Double] = [], north: [Double] = [], up: [Double] = [], truth: [Vector3] = []
        for _ in 0..<1000 {
            let before = b.frames.count
            b.run(for: 0.1)
            for (_, f) in b.frames[before...] {
                guard case .globalPositionInt(let m) = f.message else { continue }
                let local = homePlane.local(
                    GeodeticCoordinate(latitude: Double(m.lat) / 1e7, longitude: Double(m.lon) / 1e7, altitude: 300))
                let p = b.emulator.position
                east.append(local.east - p.x)
                north.append(local.north - p.y)
                up.append(Double(m.relativeAlt) / 1000 - p.z)
                truth.append(p)
            }
        }
        func stats(_ v: [Double]) -> (mean: Double, std: Double) {
            let mean = v.reduce(0, +) / Double(v.count)
            return (mean, (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(v.count)).squareRoot())
        }
        #expect(east.count >= 990)
        for (axis, sigma) in [(east, 0.3), (north, 0.3), (up, 0.15)] {
            let s = stats(axis)
            #expect(abs(s.mean) < 0.05 && abs(s.std - sigma) < 0.15 * sigma, "\(s) for σ \(sigma)")
        }
        // The vehicle itself holds still: the noise is in the report only.
        let spread = truth.map { $0.distance(to: truth[0]) }.max() ?? 0
        #expect(spread < 0.01, "\(spread)")
    }
}
