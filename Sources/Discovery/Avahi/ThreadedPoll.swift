import CAvahi

/// Avahi's threaded event loop. Callbacks run on its thread with its lock held; every other call into
/// libavahi-client must hold the lock, which `withLock` takes.
final class ThreadedPoll: @unchecked Sendable {
    let pointer: OpaquePointer

    init() throws(AvahiError) {
        guard let p = avahi_threaded_poll_new() else {
            throw AvahiError(code: Int32(AVAHI_ERR_NO_MEMORY), context: "creating the poll")
        }
        pointer = p
    }

    var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(pointer) }

    func start() throws(AvahiError) {
        let r = avahi_threaded_poll_start(pointer)
        if r < 0 { throw AvahiError(code: r, context: "starting the poll thread") }
    }

    /// Runs `body` holding the poll lock. Never call from inside an Avahi callback (the lock is held there already).
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        avahi_threaded_poll_lock(pointer)
        defer { avahi_threaded_poll_unlock(pointer) }
        return try body()
    }

    /// Stops the poll thread and waits for it. Must not hold the lock.
    func stop() {
        avahi_threaded_poll_stop(pointer)
    }

    deinit {
        avahi_threaded_poll_free(pointer)
    }
}

/// An Avahi error code with its text and what FleetMesh was doing.
public struct AvahiError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let context: String

    public init(code: Int32, context: String) {
        self.code = code
        self.context = context
    }

    public var description: String {
        "\(context): \(String(cString: avahi_strerror(code)))"
    }
}
