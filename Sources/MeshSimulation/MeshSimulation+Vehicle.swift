import Coordinator
import MeshTypes

extension MeshSimulation {
    /// How many times any vehicle executed command `id`.
    public func executionCount(_ id: CommandID) -> Int {
        vehicles.reduce(0) { $0 + ($1.executions[id] ?? 0) }
    }

    /// The trivial vehicle: validates against flying state and battery, executes once, completes after 300 ms.
    func executeOnVehicle(_ i: Int, _ id: CommandID, _ command: Command) {
        if let holder = cores[i]?.leaseHolder, holder != id.origin {
            violate("drone \(i) executes \(id) while \(holder.short) holds its lease")
        }
        let v = vehicles[i]
        let verdict: VehicleVerdict
        switch command {
        case .takeoff:
            verdict = v.batteryPercent < 20 ? .rejected("battery too low") : .accepted
        case .land:
            verdict = v.flying ? .accepted : .rejected("not airborne")
        case .hover, .goto, .returnToLaunch, .followTarget, .trajectory:
            verdict = v.flying ? .accepted : .rejected("not airborne")
        }
        if verdict == .accepted {
            vehicles[i].executions[id, default: 0] += 1
            if vehicles[i].executions[id]! > 1 {
                violate("drone \(i) executed \(id) \(vehicles[i].executions[id]!) times")
            }
            pendingCommands[id] = command
            schedule(.vehicleCompletion(i, generation: generations[i], id, .completed), after: .milliseconds(300))
        }
        schedule(.vehicleVerdict(i, generation: generations[i], id, verdict), after: .milliseconds(10))
    }
}
