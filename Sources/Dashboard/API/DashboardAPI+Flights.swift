import FlightLog
import Foundation

/// The station's flight log: its flights, and one flight for the replay and plots (docs/FLIGHTLOG.md).
extension DashboardAPI {
    func flights(_ input: Operations.Flights.Input) async throws -> Operations.Flights.Output {
        // Recording, but nothing written yet: no flights.
        if let path = backend.flightLogPath, !FileManager.default.fileExists(atPath: path) {
            return .ok(.init(body: .json([])))
        }
        do {
            return .ok(.init(body: .json(try openFlightLog().flightSummaries())))
        } catch {
            return .notFound(.init(body: .json(Self.error("flights: \(error)"))))
        }
    }

    func flightTrack(_ input: Operations.FlightTrack.Input) async throws -> Operations.FlightTrack.Output {
        let id = input.path.flight
        let maxPoints = input.query.maxPoints ?? 2_000
        guard (2...20_000).contains(maxPoints) else {
            return .badRequest(
                .init(body: .json(Self.error("flight-track: maxPoints must be 2–20000, found \(maxPoints)"))))
        }
        do {
            guard let track = try openFlightLog().track(of: id, maxPoints: maxPoints) else {
                return .notFound(
                    .init(body: .json(Self.error("flight-track: no flight \(id) in the station's flight log"))))
            }
            return .ok(.init(body: .json(track)))
        } catch {
            return .notFound(.init(body: .json(Self.error("flight-track: \(error)"))))
        }
    }

    /// The node's log, opened for this request (a reader beside the node's writer: WAL lets both run).
    private func openFlightLog() throws(FlightLogError) -> FlightLogStore {
        guard let path = backend.flightLogPath else {
            throw FlightLogError(
                path: "(none)", problem: "this station records no flight log ([log] flight_log = false)")
        }
        return try FlightLogStore(path: path, mustExist: true)
    }
}
