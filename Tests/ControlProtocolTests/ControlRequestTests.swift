import ControlProtocol
import Foundation
import Testing

/// The control socket's requests: what integrators write by hand must decode to the command they meant, and
/// anything else must be refused with the field named.
struct ControlRequestTests {
    func decode(_ json: String) throws -> ControlRequest {
        try JSONDecoder().decode(ControlRequest.self, from: Data(json.utf8))
    }

    func error(_ json: String) -> String {
        do {
            let r = try decode(json)
            return "decoded as \(r)"
        } catch let e as ControlRequestError {
            return e.description
        } catch {
            return "other error: \(error)"
        }
    }

    @Test func theDocumentedExamplesDecodeToTheirCommands() throws {
        #expect(try decode(#"{"command":"status"}"#) == .status)
        #expect(try decode(#"{"command":"peers","v":1}"#) == .peers)
        #expect(
            try decode(#"{"command":"send","uav":2,"args":["takeoff","10"],"timeoutMs":30000}"#)
                == .send(.init(uav: 2, args: ["takeoff", "10"], timeoutMs: 30_000)))
        #expect(
            try decode(#"{"command":"send","uav":7,"args":["hover"],"takeover":true}"#)
                == .send(.init(uav: 7, args: ["hover"], timeoutMs: 30_000, takeover: true)))
        #expect(
            try decode(#"{"command":"target","latitude":50.1,"longitude":14.4,"altitude":20,"all":true,"follow":true}"#)
                == .target(.init(latitude: 50.1, longitude: 14.4, altitude: 20, to: .all, follow: true)))
        #expect(
            try decode(#"{"command":"target","latitude":50.1,"longitude":14.4,"altitude":20,"uav":3,"timeoutMs":0}"#)
                == .target(.init(latitude: 50.1, longitude: 14.4, altitude: 20, to: .uav(3), timeoutMs: 1)))
        #expect(
            try decode(#"{"command":"manual","uavs":[2,5],"rateHz":100,"durationMs":2000,"axes":[500,0,0,0]}"#)
                == .manual(.init(uavs: [2, 5], rateHz: 100, durationMs: 2000, axes: [500, 0, 0, 0])))
        #expect(try decode(#"{"command":"manual","uav":4}"#) == .manual(.init(uavs: [4])))
        #expect(
            try decode(#"{"command":"group","uavs":[1,2,4],"args":["takeoff","10"]}"#)
                == .group(.init(uavs: [1, 2, 4], args: ["takeoff", "10"], leadMs: 1500, timeoutMs: 30_000)))
        #expect(
            try decode(#"{"command":"group","uavs":[3],"args":["hover"],"leadMs":100,"timeoutMs":5,"takeover":true}"#)
                == .group(.init(uavs: [3], args: ["hover"], leadMs: 100, timeoutMs: 5, takeover: true)))
        #expect(try decode(#"{"command":"events"}"#) == .events(.init(after: 0, limit: 200)))
        #expect(try decode(#"{"command":"events","after":41,"limit":10}"#) == .events(.init(after: 41, limit: 10)))
        #expect(try decode(#"{"command":"geofence"}"#) == .geofence)
        #expect(try decode(#"{"command":"clearGeofence"}"#) == .clearGeofence)
        #expect(
            try decode(
                #"{"command":"setGeofence","corners":[[50.075,14.437],[50.075,14.4384],[50.0759,14.4384]],"floor":2,"ceiling":60}"#
            )
                == .setGeofence(
                    .init(corners: [[50.075, 14.437], [50.075, 14.4384], [50.0759, 14.4384]], floor: 2, ceiling: 60)))
        // Floor and ceiling default to [avoidance]'s 2 and 120 m.
        #expect(
            try decode(#"{"command":"setGeofence","corners":[[1,2],[3,4],[5,6]]}"#)
                == .setGeofence(.init(corners: [[1, 2], [3, 4], [5, 6]], floor: 2, ceiling: 120)))
        // A field given as null counts as absent.
        #expect(
            try decode(#"{"command":"send","uav":2,"args":["land"],"timeoutMs":null}"#)
                == .send(.init(uav: 2, args: ["land"])))
    }

    @Test(arguments: [
        ControlRequest.status, .peers, .vehicles, .airspace, .origin, .sources,
        .send(.init(uav: 250, args: ["goto", "50", "14", "10", "5"], timeoutMs: 1, takeover: true)),
        .target(
            .init(latitude: -33.5, longitude: 151.25, altitude: -3, to: .uav(1), follow: false, timeoutMs: 600_000)),
        .target(.init(latitude: 0, longitude: 0, altitude: 0, to: .all, follow: true)),
        .manual(.init(uavs: [1, 250], rateHz: 1000, durationMs: 600_000, axes: [-1000, 1000, 0, 5], takeover: true)),
        .events(.init()), .events(.init(after: 1_000_000, limit: 1)), .geofence, .clearGeofence,
        .setGeofence(.init(corners: [[50.075, 14.437], [-33.5, 151.25], [0, 0]], floor: -5, ceiling: 0.5)),
        .group(.init(uavs: [250, 1], args: ["land"], leadMs: 60_000, timeoutMs: 600_000, takeover: true)),
    ])
    func everyRequestSurvivesTheWire(_ request: ControlRequest) throws {
        let bytes = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(ControlRequest.self, from: bytes) == request)
        let object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        #expect(object["command"] as? String == request.command)
        #expect(object["v"] as? Int == ControlProtocol.version)
    }

    @Test func badRequestsNameTheFieldAndWhatWasWrong() {
        let cases: [(String, String)] = [
            ("[1,2]", #"malformed control request: expected one JSON object like {"command":"status"}"#),
            (
                #"{"uav":2}"#,
                #"malformed control request: "command" is required (one of status, peers, vehicles, airspace, send, group, target, origin, sources, manual, events, geofence, setGeofence, clearGeofence)"#
            ),
            (
                #"{"command":5}"#,
                #"malformed control request: "command" must be a string: one of status, peers, vehicles, airspace, send, group, target, origin, sources, manual, events, geofence, setGeofence, clearGeofence, found 5.0"#
            ),
            (
                #"{"command":"jump"}"#,
                "unknown command 'jump' (known: status, peers, vehicles, airspace, send, group, target, origin, sources, manual, events, geofence, setGeofence, clearGeofence)"
            ),
            (#"{"command":"events","limit":0}"#, #"events: "limit" must be 1–1000, found 0"#),
            (
                #"{"command":"setGeofence","floor":2}"#,
                #"setGeofence: "corners" is required: an array of 3–64 [latitude, longitude] pairs in degrees"#
            ),
            (
                #"{"command":"setGeofence","corners":[[1,"x"]]}"#,
                #"setGeofence: "corners" must be an array of [latitude, longitude] pairs in degrees, found an array"#
            ),
            (
                #"{"command":"setGeofence","corners":[[1,2]],"ceiling":"high"}"#,
                #"setGeofence: "ceiling" must be a number of metres above home, found the string "high""#
            ),
            (
                #"{"command":"setGeofence","corners":[[1,2]],"height":3}"#,
                #"setGeofence: unknown field "height" (setGeofence takes corners, floor, ceiling)"#
            ),
            (
                #"{"command":"clearGeofence","all":true}"#,
                #"clearGeofence: unknown field "all" (clearGeofence takes no fields)"#
            ),
            (#"{"command":"events","after":-1}"#, #"events: "after" must be 0 or more, found -1"#),
            (
                #"{"command":"events","since":3}"#,
                #"events: unknown field "since" (events takes after, limit)"#
            ),
            (#"{"command":"status","v":2}"#, #"status: "v": this node speaks control protocol version 1, found 2"#),
            (#"{"command":"status","verbose":true}"#, #"status: unknown field "verbose" (status takes no fields)"#),
            (
                #"{"command":"send","uav":2,"args":["hover"],"timeout":5}"#,
                #"send: unknown field "timeout" (send takes uav, args, timeoutMs, takeover)"#
            ),
            (#"{"command":"send","args":["hover"]}"#, #"send: "uav" must be a UAV number 1–250, found none"#),
            (#"{"command":"send","uav":0,"args":["hover"]}"#, #"send: "uav" must be a UAV number 1–250, found 0"#),
            (
                #"{"command":"send","uav":"7","args":["hover"]}"#,
                #"send: "uav" must be a UAV number 1–250, found the string "7""#
            ),
            (
                #"{"command":"send","uav":7,"args":"hover"}"#,
                #"send: "args" must be an array of strings (the command as words), found the string "hover""#
            ),
            (
                #"{"command":"send","uav":7,"args":["hover"],"timeoutMs":0}"#,
                #"send: "timeoutMs" must be 1–600000, found 0"#
            ),
            (
                #"{"command":"send","uav":7,"args":["hover"],"takeover":"yes"}"#,
                #"send: "takeover" must be true or false, found the string "yes""#
            ),
            (
                #"{"command":"target","latitude":50,"longitude":14}"#,
                #"target: "latitude", "longitude" and "altitude" are required"#
            ),
            (
                #"{"command":"target","latitude":50,"longitude":14,"altitude":[1]}"#,
                #"target: "altitude" must be a number (metres), found an array"#
            ),
            (
                #"{"command":"target","latitude":50,"longitude":14,"altitude":5,"uav":3,"all":true}"#,
                #"target: give either "uav" or "all", not both"#
            ),
            (
                #"{"command":"target","latitude":50,"longitude":14,"altitude":5,"uav":251}"#,
                #"target: "uav" must be a UAV number 1–250, found 251"#
            ),
            (
                #"{"command":"target","latitude":50,"longitude":14,"altitude":5}"#,
                #"target: say which drones: "uav" (1–250) or "all": true"#
            ),
            (#"{"command":"manual","uavs":[]}"#, #"manual: "uavs" must list UAV numbers 1–250, found []"#),
            (#"{"command":"manual","uavs":[3],"rateHz":0}"#, #"manual: "rateHz" must be 1–1000, found 0.0"#),
            (#"{"command":"manual","uavs":[3],"durationMs":0}"#, #"manual: "durationMs" must be 1–600000, found 0"#),
            (
                #"{"command":"manual","uavs":[3],"axes":[1]}"#,
                #"manual: "axes" must be four numbers x, y, z, r within -1000…1000, found [1]"#
            ),
            (
                #"{"command":"manual","uavs":[3],"axes":{"x":1}}"#,
                #"manual: "axes" must be four integers x, y, z, r, found an object"#
            ),
            (#"{"command":"group","args":["hover"]}"#, #"group: "uavs" must list UAV numbers 1–250, found []"#),
            (
                #"{"command":"group","uavs":[1,251],"args":["hover"]}"#,
                #"group: "uavs" must list UAV numbers 1–250, found [1, 251]"#
            ),
            (#"{"command":"group","uavs":[4,2,4],"args":["hover"]}"#, #"group: "uavs" lists UAV 4 twice"#),
            (
                #"{"command":"group","uavs":[1],"args":["hover"],"leadMs":99}"#,
                #"group: "leadMs" must be 100–60000, found 99"#
            ),
            (
                #"{"command":"group","uavs":[1],"args":["hover"],"leadMs":60001}"#,
                #"group: "leadMs" must be 100–60000, found 60001"#
            ),
            (
                #"{"command":"group","uavs":[1],"args":["hover"],"leadMs":"soon"}"#,
                #"group: "leadMs" must be an integer number of milliseconds, found the string "soon""#
            ),
            (
                #"{"command":"group","uavs":[1],"args":["hover"],"uav":1}"#,
                #"group: unknown field "uav" (group takes uavs, args, leadMs, timeoutMs, takeover)"#
            ),
        ]
        for (json, expected) in cases {
            #expect(error(json) == expected, "\(json)")
        }
    }
}
