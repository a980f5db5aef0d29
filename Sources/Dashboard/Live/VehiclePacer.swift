/// How often one client is sent each vehicle: the pure rule behind the live stream's per-client rates.
///
/// A sample goes on at once when its vehicle's period (nearly) has passed since the last one sent, so a steady source
/// at or below the client's rate reaches it with no added delay; a sample that comes sooner is held, replaced by any
/// newer one, and sent when `due` finds it one and a half periods after the last send — a vehicle that falls silent
/// still shows its last state. Memory is one held sample per vehicle.
struct VehiclePacer<Message> {
    /// A send this close to the period (a fraction of it) counts as on time: a 10 Hz source is not halved by jitter.
    static var earlyAllowance: Double { 0.9 }
    /// A held sample waits this many periods after the last send before it goes on by itself.
    static var holdLimit: Double { 1.5 }

    private struct Slot {
        var lastSent: ContinuousClock.Instant
        var held: (message: Message, due: ContinuousClock.Instant)?
    }

    private var slots: [String: Slot] = [:]

    /// A sample of `vehicle` arrived: the message to send now, or nil when it is held.
    mutating func arrived(
        _ message: Message, vehicle: String, period: Duration, now: ContinuousClock.Instant
    ) -> Message? {
        guard var slot = slots[vehicle] else {
            slots[vehicle] = Slot(lastSent: now)
            return message
        }
        if now - slot.lastSent >= period * Self.earlyAllowance {
            slot.lastSent = now
            slot.held = nil
            slots[vehicle] = slot
            return message
        }
        slot.held = (message, slot.lastSent + period * Self.holdLimit)
        slots[vehicle] = slot
        return nil
    }

    /// The held samples whose time has come (each vehicle's newest), now counted as sent.
    mutating func due(now: ContinuousClock.Instant) -> [Message] {
        var out: [Message] = []
        for (vehicle, slot) in slots {
            guard let held = slot.held, held.due <= now else { continue }
            out.append(held.message)
            slots[vehicle] = Slot(lastSent: now)
        }
        return out
    }

    /// Vehicles with a held sample.
    var heldCount: Int { slots.values.count { $0.held != nil } }
}
