import GRDB

/// A flight not yet closed, as the writer keeps it between batches.
struct OpenFlight: Sendable, Hashable {
    var id: Int64
    /// Its vehicle's last sample.
    var last: Int64
    /// Whether the flight row has the vehicle's UAV number yet.
    var numbered: Bool
}

extension FlightLogStore {
    /// Opens a flight when a vehicle leaves the ground, closes it when it lands (or when it was not heard for
    /// `flightGapMs`, at its last sample). `open`: the flights open after the previous batch (nil: read them from the
    /// file, with each vehicle's last sample); returns them after this one. Open flights' rows are written only when
    /// they open, learn their UAV number or close, not at every batch.
    static func trackFlights(_ samples: [TelemetryRecord], open cached: [String: OpenFlight]?, in db: Database) throws
        -> [String: OpenFlight]
    {
        var open: [String: OpenFlight]
        if let cached {
            open = cached
        } else {
            open = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.node, f.uav,
                        (SELECT max(t.time_ms) FROM telemetry t WHERE t.node = f.node AND t.time_ms >= f.start_ms) AS last
                    FROM flight f WHERE f.end_ms IS NULL
                    """)
            for row in rows {
                let id: Int64 = row["id"]
                let uav: Int? = row["uav"]
                open[row["node"]] = OpenFlight(id: id, last: row["last"] ?? 0, numbered: uav != nil)
            }
        }
        guard !samples.isEmpty else { return open }
        let close = try db.cachedStatement(sql: "UPDATE flight SET end_ms = ?, last_ms = ? WHERE id = ?")
        let number = try db.cachedStatement(sql: "UPDATE flight SET uav = ? WHERE id = ? AND uav IS NULL")
        let insert = try db.cachedStatement(
            sql: "INSERT INTO flight (node, uav, name, start_ms, last_ms) VALUES (?, ?, ?, ?, ?)")
        for s in samples {
            if let o = open[s.node], s.timeMs - o.last > flightGapMs {
                try close.execute(arguments: [o.last, o.last, o.id])
                open[s.node] = nil
            }
            if var o = open[s.node] {
                if s.isAirborne {
                    o.last = max(o.last, s.timeMs)
                    if !o.numbered, let uav = s.uavNumber {
                        try number.execute(arguments: [uav, o.id])
                        o.numbered = true
                    }
                    open[s.node] = o
                } else {
                    if !o.numbered, let uav = s.uavNumber { try number.execute(arguments: [uav, o.id]) }
                    try close.execute(arguments: [s.timeMs, s.timeMs, o.id])
                    open[s.node] = nil
                }
            } else if s.isAirborne {
                try insert.execute(arguments: [s.node, s.uavNumber, s.name, s.timeMs, s.timeMs])
                open[s.node] = OpenFlight(id: db.lastInsertedRowID, last: s.timeMs, numbered: s.uavNumber != nil)
            }
        }
        return open
    }
}
