import Foundation
import MeshSimulation
import MeshTypes
import NodeCore

/// `fleetmesh-sim station-traffic`: the station's steady-state inputs under a fleet on the ground (`StationTraffic`),
/// replayed into copies of the station on one thread. Each kind of input goes through a function of its own, never
/// inlined, so callgrind's inclusive count of `replayStationDatagram`, `replayStationMeshTick` and
/// `replayStationCoordinatorTick` divided by the counts printed is the station's instructions per input.
enum StationTrafficCount {
    static func run(_ args: [String]) -> Never {
        var drones = 100
        var seconds = 2
        var replays = 5
        var group = false
        var rest = args[...]
        while let flag = rest.popFirst() {
            if flag == "--group" {
                group = true
                continue
            }
            guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { usage() }
            switch flag {
            case "--drones": drones = value
            case "--seconds": seconds = value
            case "--replays": replays = value
            default: usage()
            }
        }
        var traffic = StationTraffic(spec: .init(drones: drones, group: group))
        guard traffic.settle() else {
            print("station-traffic: only \(traffic.liveDrones) of \(drones) drones live after 60 s")
            exit(1)
        }
        let before = traffic.station
        let trace = traffic.record(for: .seconds(seconds))
        var datagrams = 0, meshTicks = 0, coordinatorTicks = 0, sent = 0
        for _ in 0..<replays {
            var station = before
            for r in trace {
                switch r.input {
                case .datagram:
                    datagrams += 1
                    sent += replayStationDatagram(r, &station)
                case .meshTick:
                    meshTicks += 1
                    sent += replayStationMeshTick(r, &station)
                case .coordinatorTick:
                    coordinatorTicks += 1
                    sent += replayStationCoordinatorTick(r, &station)
                }
            }
        }
        print(
            """
            station-traffic: \(drones) drones\(group ? " on the group channel" : " in a unicast star"), \
            \(seconds) s recorded, \(replays) replays
              datagrams \(datagrams), mesh ticks \(meshTicks), coordinator ticks \(coordinatorTicks), \
            datagrams sent \(sent)
            """)
        exit(traffic.malformed.isEmpty ? 0 : 1)
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data("usage: fleetmesh-sim station-traffic [--drones N] [--seconds S] [--replays R] [--group]\n".utf8))
        exit(64)
    }
}

/// Datagrams the station sends in answer to one input, unicast and group (what keeps the work from being optimised
/// away).
func sentDatagrams(_ effects: [NodeCore<Int>.Effect]) -> Int {
    effects.reduce(0) { n, e in
        switch e {
        case .datagram, .groupDatagram: n + 1
        default: n
        }
    }
}

@inline(never)
func replayStationDatagram(_ r: StationTraffic.Recorded, _ station: inout NodeCore<Int>) -> Int {
    guard case .datagram(let bytes, let from) = r.input else { return 0 }
    return sentDatagrams(station.onDatagram(bytes, from: from, now: r.at))
}

@inline(never)
func replayStationMeshTick(_ r: StationTraffic.Recorded, _ station: inout NodeCore<Int>) -> Int {
    guard case .meshTick(let wall) = r.input else { return 0 }
    return sentDatagrams(station.onMeshTick(now: r.at, wallClockMicros: wall))
}

@inline(never)
func replayStationCoordinatorTick(_ r: StationTraffic.Recorded, _ station: inout NodeCore<Int>) -> Int {
    sentDatagrams(StationTraffic.feed(r.input, to: &station, now: r.at))
}
