import Foundation
import LabKit
import Testing

extension MeshLabTests {
    /// A node that gets no CPU for 1.5 s (SIGSTOP, as an overloaded companion computer does for shorter spells) finds
    /// its peers' datagrams waiting when it runs again: its own backlog is not their silence, so it declares nobody
    /// lost, and says it runs late. The peers, which did not hear it for 1.5 s, do declare it lost, and have it back in
    /// session within a second and a half of its return.
    @Test func aNodeThatStallsDoesNotDeclareItsPeersLost() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let other = try lab.startNode(host: 2, name: "drone-2")
            let stalled = try lab.startNode(host: 3, name: "drone-3")
            let nodes = [station, other, stalled]
            try await waitUntil("every node in session with the 2 others", timeout: .seconds(15)) {
                try nodes.allSatisfy { n in
                    let s = try n.status()
                    return s.peers.count == 2 && s.peers.allSatisfy { $0.state == "established" }
                }
            }
            let before = stalled.log.count
            stalled.signal(SIGSTOP)
            try await waitUntil("the station declares the stopped node lost", timeout: .seconds(5)) {
                station.peerState("drone-3") == "lost"
            }
            // The stall's length is the experiment's parameter, not a wait for something: 0.75 s more, about 1.5 s
            // in all (the station's loss takes about 0.75 s).
            try await Task.sleep(for: .milliseconds(750))
            stalled.signal(SIGCONT)
            let back = try await waitUntil("everyone in session again", timeout: .seconds(5)) {
                try nodes.allSatisfy { n in
                    let s = try n.status()
                    return s.peers.count == 2 && s.peers.allSatisfy { $0.state == "established" }
                }
            }
            print("all back in session \(back) after SIGCONT")
            let after = String(stalled.log.dropFirst(before))
            let losses = after.split(separator: "\n").filter { $0.contains("→ lost") || $0.contains("→ suspect") }
            #expect(losses.isEmpty, "the stalled node judged its peers by its own backlog: \(losses)")
            #expect(after.contains("ms late (short of CPU)"), "\(after.suffix(2000))")
            #expect(station.log.contains("peer drone-3") && station.log.contains("→ lost"))
            // Behind by well over 500 ms, the drone publishes at the minimal pace (from its next 50 ms tick), says so,
            // and comes back to the full pace one level per 10 s on time.
            var paces: [String] = []
            func pace() throws -> Bool {
                let pace = try stalled.status().node.traffic?.publicationPace ?? "none"
                if paces.last != pace { paces.append(pace) }
                return pace == "full"
            }
            try await waitUntil("the stalled drone at the minimal pace", timeout: .seconds(2), poll: .milliseconds(10))
            {
                _ = try pace()
                return paces.last == "minimal"
            }
            #expect(
                stalled.log.contains(
                    "publishing telemetry at 5 Hz, predictions at 2.5 Hz, neighbour changes at most every 1 s (pace minimal)"
                ),
                "\(stalled.log.suffix(2000))")
            #expect(try other.status().node.traffic?.publicationPace == "full")
            let full = try await waitUntil(
                "the stalled drone back at the full pace", timeout: .seconds(60), poll: .milliseconds(250)
            ) { try pace() }
            print("publication pace after SIGCONT: \(paces.joined(separator: " → ")), full again \(full) after")
            #expect(paces.contains("reduced") && !paces.contains("none"), "\(paces)")
            #expect(stalled.log.contains("again (pace full): this node has been on time for 10 s"))
        }
    }

    /// Datagrams that reach a node while it gets no CPU wait in its socket's receive buffer; once the buffer is full,
    /// the kernel drops the rest. The node counts every datagram it never read (`status`: `droppedByKernel`,
    /// `droppedByQueue`), so that what it read and what it lost add up exactly to what was sent; it says so in its log,
    /// and runs on.
    @Test func datagramsTheNodeNeverReadAreCountedToTheLast() async throws {
        try await Lab.with(hosts: 2) { lab in
            let a = try lab.startNode(host: 1, name: "a")
            try await waitUntil("a reports its receive buffer", timeout: .seconds(10)) {
                try a.status().node.traffic?.receiveBuffer != nil
            }
            func counts() throws -> (read: Int, kernel: Int, queue: Int, buffer: Int) {
                let n = try a.status().node
                return (
                    n.rejections.values.reduce(0, +), n.traffic?.droppedByKernel ?? -1, n.traffic?.droppedByQueue ?? -1,
                    n.traffic?.receiveBuffer ?? 0
                )
            }
            let before = try counts()
            #expect(before.kernel == 0 && before.queue == 0)
            // 8,000 datagrams of 64 bytes: each takes about 800 bytes of the buffer, so a 2 MiB buffer holds under
            // 3,000 of them.
            let sent = 8000
            a.signal(SIGSTOP)
            let tool = repositoryRoot.appendingPathComponent("Tests/LabTests/udp_tool.py").path
            let flood = try shell([
                "bash", labScript, "--name", lab.name,
                "exec", "2", "python3", tool, "flood", try lab.address(1), "47800", "\(sent)",
            ])
            a.signal(SIGCONT)
            try #require(flood.status == 0, "flood failed: \(flood.output)")
            var after = before
            try await waitUntil("every datagram sent is read or counted as lost unread", timeout: .seconds(10)) {
                after = try counts()
                return (after.read - before.read) + after.kernel + after.queue >= sent
            }
            let read = after.read - before.read
            print(
                "flood of \(sent) at a stopped node (\(after.buffer / 1024) KiB buffer): \(read) read and refused, \(after.kernel) dropped by the kernel, \(after.queue) by the queue"
            )
            #expect(read + after.kernel + after.queue == sent)
            #expect(after.kernel > 0 && read > 0)
            let warned = try? await waitUntil("a warns of the datagrams it never read", timeout: .seconds(5)) {
                a.log.contains("datagrams reached this node but were never read")
            }
            #expect(warned != nil, "\(a.log.suffix(2000))")
            #expect(a.process.isRunning)
        }
    }
}
