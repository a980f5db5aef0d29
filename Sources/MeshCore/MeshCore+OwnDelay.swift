import Membership
import MeshTypes

extension MeshCore {
    /// The shell handled a datagram `delay` after it arrived, or a tick `delay` after its instant: the failure
    /// detector allows for this node's own lateness (``OwnDelay``).
    public mutating func onOwnDelay(_ delay: Duration, now: MeshInstant) {
        ownDelay.note(delay, now: now)
    }

    /// How late this node has lately been in handling what was due (what the failure detector allows for).
    public func ownLateness(now: MeshInstant) -> Duration { ownDelay.allowance(now: now) }
}
