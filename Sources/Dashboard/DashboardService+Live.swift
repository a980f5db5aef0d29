import ControlProtocol
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The live WebSocket (`/api/v1/live`): the live picture out (LivePicture), and in: subscriptions (which drones the
/// client watches and how often) and manual-control samples from a browser gamepad (operators only).
extension DashboardService {
    /// Largest message a client may send.
    static let maximumLiveMessage = 4096
    /// Manual-control samples a client may send per second (the gamepad's 100 Hz with room for jitter).
    static let maximumManualRate = 120

    func addLive(to router: Router<DashboardRequestContext>, live: LivePicture) {
        let backend = self.backend
        router.ws("/api/v1/live") { inbound, outbound, context in
            // Without accounts every client may command (the dashboard then listens on loopback only).
            let session = context.requestContext.session
            let mayDrive = session.map { $0.role == .operator } ?? true
            let client = await live.subscribe()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in client.signals {
                        for text in client.take() {
                            do { try await outbound.write(.text(text)) } catch { return }
                        }
                    }
                }
                group.addTask {
                    var window = (start: ContinuousClock.now, samples: 0)
                    do {
                        for try await message in inbound.messages(maxSize: Self.maximumLiveMessage) {
                            guard case .text(let text) = message else {
                                client.post(note: Self.liveError("binary messages are not understood: send JSON text"))
                                continue
                            }
                            let current = await live.subscription(of: client.id)
                            let request: LiveRequest
                            do throws(LiveRequestError) {
                                request = try LiveRequest.parse(text, current: current)
                            } catch {
                                client.post(note: Self.liveError(error.description))
                                continue
                            }
                            switch request {
                            case .subscribe(let subscription):
                                await live.change(client.id, to: subscription)
                            case .manual(let uav, let axes, let takeover):
                                guard mayDrive else {
                                    client.post(
                                        note: Self.liveError(
                                            "manual: account \"\(session?.name ?? "")\" is a viewer: manual control needs an operator account"
                                        ))
                                    continue
                                }
                                let now = ContinuousClock.now
                                if now - window.start >= .seconds(1) { window = (now, 0) }
                                window.samples += 1
                                guard window.samples <= Self.maximumManualRate else {
                                    if window.samples == Self.maximumManualRate + 1 {
                                        client.post(
                                            note: Self.liveError(
                                                "manual: more than \(Self.maximumManualRate) samples in a second; the rest of this second's are dropped"
                                            ))
                                    }
                                    continue
                                }
                                if let problem = await backend.manualSample(
                                    .init(uav: uav, axes: axes, takeover: takeover))
                                {
                                    client.post(note: Self.liveError(problem))
                                }
                            }
                        }
                    } catch {
                        // A message over the limit or a broken connection ends this client.
                    }
                }
                await group.next()
                group.cancelAll()
            }
            await live.unsubscribe(client.id)
        }
    }

    /// `{"type":"error","error":message}`.
    static func liveError(_ message: String) -> String {
        let data = (try? JSONEncoder().encode(["type": "error", "error": message])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
