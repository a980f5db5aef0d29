import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The dashboard's request context: WebSocket-capable, with the client's address (logins are limited per address)
/// and the session the access middleware found.
struct DashboardRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?
    /// The logged-in session (nil when the dashboard has no accounts, or before the middleware ran).
    var session: AccessControl.Session?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address without its port, as logins are counted.
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
