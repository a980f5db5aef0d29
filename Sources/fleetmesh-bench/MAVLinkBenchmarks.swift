import MAVLink

/// MAVLink codec figures: parser throughput on a mixed telemetry stream against a byte-summing baseline,
/// decode and encode rates, and signature sign/verify rates.
enum MAVLinkBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("MAVLink codec")

        // A mixed telemetry stream like an autopilot's: GLOBAL_POSITION_INT, ATTITUDE, HEARTBEAT.
        var encoder = MAVLinkEncoder(systemID: 1, componentID: 1)
        let now = MAVLinkTimestamp(rawValue: 300_000_000_000)
        var stream: [UInt8] = []
        let frameCount = 3000
        for i in 0..<frameCount {
            let t = UInt32(i * 20)
            switch i % 3 {
            case 0:
                stream += encoder.encode(
                    GlobalPositionInt(
                        timeBootMs: t, lat: 473_977_420 + Int32(i), lon: 85_455_940,
                        alt: 488_000, relativeAlt: 10_000, vx: 120, vy: -30,
                        vz: 5, hdg: 9000), now: now)
            case 1:
                stream += encoder.encode(
                    Attitude(
                        timeBootMs: t, roll: 0.01, pitch: -0.02, yaw: 1.5,
                        rollspeed: 0.001, pitchspeed: 0.002, yawspeed: 0.1), now: now)
            default:
                stream += encoder.encode(
                    Heartbeat(
                        type: .quadrotor, autopilot: .px4, baseMode: [.safetyArmed],
                        customMode: 65536, systemStatus: .active), now: now)
            }
        }
        out.line("stream", "\(frameCount) frames, \(stream.count) bytes (avg \(stream.count / frameCount) B/frame)")

        // Baseline: one pass summing every byte of the same stream.
        var salt: UInt64 = 0
        let sumPasses = passesPerSecond {
            salt &+= 1
            blackHole(sumBytes(stream, seed: salt))
        }
        let baselineFrames = sumPasses * Double(frameCount)
        out.rate(
            "baseline: sum bytes (frame-equivalents)", perSecond: baselineFrames,
            note: String(format: "%.0f MB/s", sumPasses * Double(stream.count) / 1e6))

        let parsePasses = passesPerSecond {
            var parser = MAVLinkParser()
            parser.append(stream)
            var n = 0
            while let e = parser.next() { if case .frame = e { n += 1 } }
            precondition(n == frameCount)
            blackHole(n)
        }
        let parseFrames = parsePasses * Double(frameCount)
        out.rate(
            "parse frames (CRC checked)", perSecond: parseFrames,
            note: String(format: "%.0f MB/s", parsePasses * Double(stream.count) / 1e6))
        out.ratio("parse vs byte-sum baseline", parseFrames / baselineFrames, against: "sum bytes")

        let decodePasses = passesPerSecond {
            var parser = MAVLinkParser()
            parser.append(stream)
            var n = 0
            while let e = parser.next() {
                if case .frame(let f) = e, case .unknown = f.message {} else { n += 1 }
            }
            blackHole(n)
        }
        out.rate("parse + decode to MAVLinkMessage", perSecond: decodePasses * Double(frameCount))

        // Chunked like UDP datagrams / serial reads (64-byte chunks).
        let chunks = stride(from: 0, to: stream.count, by: 64).map { Array(stream[$0..<min($0 + 64, stream.count)]) }
        let chunkPasses = passesPerSecond {
            var parser = MAVLinkParser()
            var n = 0
            for c in chunks {
                parser.append(c)
                while let e = parser.next() { if case .frame = e { n += 1 } }
            }
            blackHole(n)
        }
        out.rate("parse frames, 64-byte chunks", perSecond: chunkPasses * Double(frameCount))

        let position = GlobalPositionInt(
            timeBootMs: 1, lat: 473_977_420, lon: 85_455_940, alt: 488_000,
            relativeAlt: 10_000, vx: 120, vy: -30, vz: 5, hdg: 9000)
        var seq: UInt8 = 0
        let encodeRate = throughput(seconds: 0.5, batch: 1000) {
            seq &+= 1
            blackHole(MAVLinkEncoder.frame(for: position, sysid: 1, compid: 1, seq: seq).bytes)
        }
        out.rate("encode GLOBAL_POSITION_INT to bytes", perSecond: encodeRate)

        // Signing.
        let key = MAVLinkSigningKey(passphrase: "fleetmesh-bench")
        var signer = MAVLinkSigning(key: key, linkID: 1)
        let signRate = throughput(seconds: 0.5, batch: 1000) {
            let params = signer.nextParameters(now: now)
            blackHole(MAVLinkEncoder.frame(for: position, sysid: 1, compid: 1, seq: 0, signing: params))
        }
        out.rate("encode + sign GLOBAL_POSITION_INT", perSecond: signRate)

        var signing = MAVLinkEncoder(systemID: 1, componentID: 1, signing: MAVLinkSigning(key: key, linkID: 1))
        let signed = (0..<2000).map { _ in signing.frame(for: position, now: now) }
        let verifyPasses = passesPerSecond {
            var verifier = MAVLinkSignatureVerifier(key: key)
            var ok = 0
            for f in signed { if (try? verifier.verify(f, now: now)) != nil { ok += 1 } }
            precondition(ok == signed.count)
            blackHole(ok)
        }
        out.rate("verify signed frames", perSecond: verifyPasses * Double(signed.count))
        let signedStream = signed.flatMap(\.bytes)
        let parseVerifyPasses = passesPerSecond {
            var parser = MAVLinkParser()
            var verifier = MAVLinkSignatureVerifier(key: key)
            parser.append(signedStream)
            var ok = 0
            while let e = parser.next() {
                if case .frame(let f) = e, (try? verifier.verify(f, now: now)) != nil { ok += 1 }
            }
            precondition(ok == signed.count)
            blackHole(ok)
        }
        out.rate("parse + verify signed frames", perSecond: parseVerifyPasses * Double(signed.count))
    }

    /// The naive baseline: touch every byte once.
    @inline(never)
    private static func sumBytes(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        var sum = seed
        for b in bytes { sum = sum &+ UInt64(b) }
        return sum
    }

    /// Runs `body` repeatedly for about half a second; returns runs per second.
    private static func passesPerSecond(_ body: () -> Void) -> Double {
        body()  // warm-up
        return throughput(seconds: 0.5, batch: 1, body)
    }
}
