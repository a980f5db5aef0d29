extension Command {
    /// The command as `fleetmesh send` spells it ("takeoff 3", "goto 50.1 14.4 20 2.5", "trajectory (4 points)"): the
    /// one wording every log line, report and label uses.
    public var summary: String {
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }
        func metres(_ mm: Int32) -> String { number(Double(mm) / 1000) }
        switch self {
        case .takeoff(let a): return "takeoff \(metres(a))"
        case .land: return "land"
        case .hover: return "hover"
        case .goto(let p, let s):
            return "goto \(p.latitude) \(p.longitude) \(metres(p.altitudeMillimetres))"
                + (s == 0 ? "" : " \(number(Double(s) / 100))")
        case .returnToLaunch: return "rtl"
        case .followTarget(let on): return "follow \(on ? "on" : "off")"
        case .trajectory(let points, let stops):
            return "trajectory (\(points.count) points\(stops.isEmpty ? "" : ", \(stops.count) stops"))"
        }
    }
}
