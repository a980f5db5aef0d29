import Foundation

/// A flight's plots for reports, drawn by gnuplot: altitude, ground speed, battery, and the distance to the nearest
/// airborne drone against the separation limit (with the cross-track error while a goto or trajectory ran), one
/// panel each, against seconds since the flight began. This builds gnuplot's script, the samples inline; `fleetmesh
/// log plot` runs gnuplot on it.
public enum FlightPlot {
    /// What gnuplot can write, by the output file's extension.
    public enum Format: String, CaseIterable, Sendable {
        case svg, png, pdf

        var terminal: String {
            switch self {
            case .svg: "svg size 1000,1100 dynamic enhanced font 'DejaVu Sans,11' background rgb 'white'"
            case .png: "pngcairo size 1000,1100 enhanced font 'DejaVu Sans,10' background rgb 'white'"
            case .pdf: "pdfcairo size 8in,9in enhanced font 'DejaVu Sans,9'"
            }
        }

        /// The format a file name asks for (its extension), if one of these.
        public init?(file: String) {
            self.init(rawValue: (file as NSString).pathExtension.lowercased())
        }
    }

    /// gnuplot's script for `track`'s own vehicle, writing `output`.
    public static func script(_ track: FlightTrack, format: Format, output: String, separationMetres: Double) -> String
    {
        let f = track.flight
        let own = track.vehicles.first { $0.own } ?? track.vehicles.first
        let start = own?.points.first?.timeMs ?? f.startMs
        func number(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "NaN" }
        var data = ""
        for p in own?.points ?? [] {
            data += "\(number(Double(p.timeMs - start) / 1000)) \(number(p.altitude)) \(number(p.speed)) \(p.battery)"
            data += " \(number(p.nearest)) \(number(p.crossTrack))\n"
        }
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(f.startMs) / 1000))
        let uav = f.uavNumber.map { "UAV \($0) " } ?? ""
        let title =
            "FleetMesh flight \(f.flight): \(uav)\(f.name), \(when), \(Int(f.durationSeconds.rounded())) s, "
            + String(format: "%.0f m flown", f.distanceMetres)
        let separation = String(format: "%.1f", separationMetres)
        let span = max(1, Double((own?.points.last?.timeMs ?? start) - start) / 1000)
        let anyNearest = own?.points.contains { $0.nearest != nil } ?? false
        let nearestTitle = anyNearest ? "nearest airborne drone" : "nearest airborne drone (none in the air)"
        return """
            set terminal \(format.terminal)
            set output \(quoted(output))
            $samples << EOD
            \(data)EOD
            set datafile missing 'NaN'
            set grid
            set xrange [0:\(String(format: "%.1f", span))]
            set key top right
            set lmargin 10
            set multiplot layout 4,1 title \(quoted(title))
            set ylabel 'altitude (m)'
            plot $samples using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'altitude above home'
            set ylabel 'speed (m/s)'
            plot $samples using 1:3 with lines lw 2 lc rgb '#2ca02c' title 'ground speed'
            set ylabel 'battery (%)'
            plot $samples using 1:4 with lines lw 2 lc rgb '#ff7f0e' title 'battery'
            set ylabel 'distance (m)'
            set xlabel 'seconds since takeoff'
            set yrange [0:*]
            plot $samples using 1:5 with lines lw 2 lc rgb '#9467bd' title \(quoted(nearestTitle)), \\
                \(separation) with lines dt 2 lw 2 lc rgb '#d62728' title 'separation limit (\(separation) m)', \\
                $samples using 1:6 with lines lw 1 lc rgb '#7f7f7f' title 'cross-track error'
            unset multiplot
            set output

            """
    }

    /// A gnuplot string literal (single quotes; a quote inside doubled).
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
