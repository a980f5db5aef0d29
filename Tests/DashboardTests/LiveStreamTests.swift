import Foundation
import Testing

@testable import Dashboard

/// The live stream's pure parts: per-client pacing of pushed telemetry, the bounded outbox a slow client skips ahead
/// in, and the checks on what a client sends.
@Suite struct LiveStreamTests {
    let t0 = ContinuousClock.now

    @Test func aSteadySourceAtOrBelowTheRateGoesOnAsItArrives() {
        var pacer = VehiclePacer<Int>()
        // 10 Hz samples with ±8 ms of jitter to a client watching at 20 Hz: every one goes at once.
        var sent = 0
        for i in 0..<50 {
            let at = t0 + .milliseconds(100 * i + (i % 2 == 0 ? 8 : -8))
            if pacer.arrived(i, vehicle: "a", period: .milliseconds(50), now: at) == i { sent += 1 }
        }
        #expect(sent == 50)
        #expect(pacer.heldCount == 0)
    }

    @Test func aFasterSourceIsThinnedToTheRateWithoutDelayingWhatGoes() {
        var pacer = VehiclePacer<Int>()
        // 10 Hz samples with jitter to a client taking 5 Hz: every second sample goes, at once; the others are held
        // and replaced, never sent late.
        var sentAt: [Int] = []
        for i in 0..<40 {
            let at = t0 + .milliseconds(100 * i + (i % 3 == 0 ? 5 : -5))
            if pacer.arrived(i, vehicle: "a", period: .milliseconds(200), now: at) != nil { sentAt.append(i) }
            #expect(pacer.due(now: at + .milliseconds(20)).isEmpty)
        }
        #expect(sentAt.count == 20, "\(sentAt)")
        // Vehicles are paced independently.
        #expect(pacer.arrived(0, vehicle: "b", period: .milliseconds(200), now: t0 + .milliseconds(3950)) == 0)
    }

    @Test func aHeldSampleGoesByItselfWhenNoNewerComes() {
        var pacer = VehiclePacer<String>()
        #expect(pacer.arrived("first", vehicle: "a", period: .milliseconds(200), now: t0) == "first")
        #expect(pacer.arrived("second", vehicle: "a", period: .milliseconds(200), now: t0 + .milliseconds(50)) == nil)
        #expect(pacer.arrived("third", vehicle: "a", period: .milliseconds(200), now: t0 + .milliseconds(90)) == nil)
        #expect(pacer.due(now: t0 + .milliseconds(290)).isEmpty)
        // One and a half periods after the last send: the newest held one, once.
        #expect(pacer.due(now: t0 + .milliseconds(300)) == ["third"])
        #expect(pacer.due(now: t0 + .milliseconds(600)).isEmpty)
        #expect(pacer.heldCount == 0)
    }

    @Test func aSlowClientsOutboxStaysBoundedAndSkipsAhead() {
        let client = LiveClient(id: 1)
        client.post(frame: "full-1", full: true)
        client.post(frame: "light-1", full: false)
        for i in 0..<10_000 {
            client.post(vehicle: "v\(i % 50)", update: #"{"n":\#(i)}"#)
            client.post(events: [#"{"seq":\#(i)}"#])
        }
        for i in 0..<100 { client.post(note: "note \(i)") }
        let out = client.take()
        // Notes (the newest 16), the full frame (a light one never replaces it), the newest 256 events, one
        // message with each vehicle's newest update.
        #expect(out.count == LiveClient.maximumNotes + 3)
        #expect(out.first == "note 84")
        #expect(out[LiveClient.maximumNotes] == "full-1")
        let events =
            try? JSONSerialization.jsonObject(with: Data(out[LiveClient.maximumNotes + 1].utf8)) as? [String: Any]
        let seqs = (events?["events"] as? [[String: Int]])?.compactMap { $0["seq"] } ?? []
        #expect(seqs.count == LiveClient.maximumEvents && seqs.first == 10_000 - 256 && seqs.last == 9_999)
        let vehicles = try? JSONSerialization.jsonObject(with: Data(out.last!.utf8)) as? [String: Any]
        let ns = (vehicles?["updates"] as? [[String: Int]])?.compactMap { $0["n"] } ?? []
        #expect(ns.count == 50 && Set(ns) == Set(9_950..<10_000))
        #expect(client.skipped > 10_000)
        #expect(client.take().isEmpty)
        // A newer full frame replaces a waiting one.
        client.post(frame: "full-2", full: true)
        client.post(frame: "full-3", full: true)
        #expect(client.take() == ["full-3"])
    }

    @Test func subscriptionsAndManualSamplesAreChecked() throws {
        let current = LiveSubscription()
        let s = try LiveRequest.parse(#"{"type":"subscribe","watch":[6,7],"othersHz":1}"#, current: current)
        #expect(s == .subscribe(LiveSubscription(watch: [6, 7], watchHz: 20, othersHz: 1)))
        #expect(LiveSubscription(watch: [6], watchHz: 20, othersHz: 2).period(for: 6) == .milliseconds(50))
        #expect(LiveSubscription(watch: [6], watchHz: 20, othersHz: 2).period(for: 7) == .milliseconds(500))
        #expect(LiveSubscription(watch: [6], watchHz: 20, othersHz: 2).period(for: nil) == .milliseconds(500))
        let m = try LiveRequest.parse(#"{"type":"manual","uav":6,"axes":[1000,0,-1000,5]}"#, current: current)
        #expect(m == .manual(uav: 6, axes: [1000, 0, -1000, 5], takeover: false))

        let refusals: [(String, String)] = [
            ("{not json", "malformed JSON"),
            ("[1]", "malformed JSON"),
            (#"{"watch":[1]}"#, "type: expected"),
            (#"{"type":"fly"}"#, #"type: expected "subscribe" or "manual", found fly"#),
            (#"{"type":"subscribe","rate":5}"#, #"subscribe: unknown field "rate""#),
            (#"{"type":"subscribe","watchHz":500}"#, "watchHz must be a number of updates per second within 1–50"),
            (#"{"type":"subscribe","othersHz":0}"#, "othersHz"),
            (#"{"type":"subscribe","watchHz":"fast"}"#, "subscribe: watchHz has the wrong type (a number)"),
            (#"{"type":"subscribe","watch":[0]}"#, "watch must be a list of UAV numbers 1–250"),
            (#"{"type":"subscribe","watch":6}"#, "watch has the wrong type"),
            (#"{"type":"manual","uav":300,"axes":[0,0,0,0]}"#, "manual: uav must be a UAV number 1–250, found 300"),
            (#"{"type":"manual","axes":[0,0,0,0]}"#, "manual: uav must be a UAV number 1–250, found none"),
            (#"{"type":"manual","uav":6,"axes":[0,0,0]}"#, "manual: axes must be four integers"),
            (#"{"type":"manual","uav":6,"axes":[0,0,0,2000]}"#, "manual: axes must be four integers"),
            (#"{"type":"manual","uav":6,"axes":[0,0,0,0.5]}"#, "manual: axes must be four integers"),
            (#"{"type":"manual","uav":6,"axes":[0,0,0,0],"takeover":"yes"}"#, "manual: takeover has the wrong type"),
        ]
        for (text, fragment) in refusals {
            #expect(throws: LiveRequestError.self, "\(text)") { try LiveRequest.parse(text, current: current) }
            do {
                _ = try LiveRequest.parse(text, current: current)
            } catch {
                #expect(error.description.contains(fragment), "\(text): \(error.description)")
            }
        }
    }
}
