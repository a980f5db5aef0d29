import Determinism
import Foundation
import MAVLink
import Testing

@Suite struct MessageRoundTripTests {
    @Test(arguments: MAVLinkMessage.generatedTypes.map { $0.messageName })
    func randomFieldValuesRoundTripThroughPayloadAndFrame(name: String) throws {
        let type = try #require(MAVLinkMessage.generatedTypes.first { $0.messageName == name })
        var rng = SeededRandom(seed: UInt64(type.id) &* 31 &+ 5)
        for i in 0..<100 {
            try roundTrip(type, payload: TestData.randomPayload(for: type, using: &rng), seq: UInt8(i))
        }
    }

    private func roundTrip<M: MAVLinkMessageType>(_: M.Type, payload: [UInt8], seq: UInt8) throws {
        let message = M(payload: payload)
        // Payload level: every field lands back on the same bytes.
        #expect(message.encodedPayload() == payload, "\(M.messageName) payload round trip")
        // Frame level: encode, parse, decode.
        let bytes = MAVLinkEncoder.frame(for: message, sysid: 3, compid: 200, seq: seq).bytes
        let (frames, drops, _) = parseAll(bytes)
        try #require(frames.count == 1 && drops.isEmpty, "\(M.messageName): \(drops)")
        #expect(try frames[0].decode(M.self) == message)
        #expect(frames[0].message == message.wrapped)
        #expect(frames[0].message.id == M.id)
        #expect(frames[0].sequence == seq && frames[0].systemID == 3 && frames[0].componentID == 200)
    }

    @Test func generatedTableIsConsistent() {
        let types = MAVLinkMessage.generatedTypes
        #expect(types.count >= 40)
        #expect(Set(types.map { $0.id }).count == types.count)
        for type in types {
            // Base fields tile the payload without gaps or overlaps, extensions follow.
            let ordered = type.fields.sorted { $0.offset < $1.offset }
            var next = 0
            for field in ordered {
                #expect(field.offset == next, "\(type.messageName).\(field.name)")
                next += field.size
            }
            #expect(next == type.maxPayloadLength)
            #expect(type.fields.filter { !$0.isExtension }.map(\.size).reduce(0, +) == type.minPayloadLength)
            #expect(MAVLinkDialect.common.info(for: type.id) == type.info)
        }
    }

    @Test func knownCRCExtraValuesFromTheMAVLinkDefinitions() {
        // Values published with the MAVLink C headers for common.xml.
        #expect(Heartbeat.crcExtra == 50)
        #expect(SysStatus.crcExtra == 124)
        #expect(GlobalPositionInt.crcExtra == 104)
        #expect(Attitude.crcExtra == 39)
        #expect(CommandLong.crcExtra == 152)
        #expect(ParamValue.crcExtra == 220)
        #expect(Statustext.crcExtra == 83)
        #expect(MissionItemInt.crcExtra == 38)
    }

    @Test func zeroTruncationOnSendAndZeroExtensionOnReceive() throws {
        let msg = GlobalPositionInt(
            timeBootMs: 1234, lat: 473_977_420, lon: 85_455_940, alt: 0, relativeAlt: 0,
            vx: 0, vy: 0, vz: 0, hdg: 0)
        let frame = MAVLinkEncoder.frame(for: msg, sysid: 1, compid: 1, seq: 0)
        // lat/lon end at byte 12; everything after is zero and is not sent.
        #expect(frame.payload.count == 12)
        #expect(frame.bytes.count == 10 + 12 + 2)
        #expect(try frame.decode(GlobalPositionInt.self) == msg)
        // An all-zero message keeps one payload byte.
        #expect(MAVLinkEncoder.frame(for: Heartbeat(mavlinkVersion: 0), sysid: 1, compid: 1, seq: 0).payload == [0])
        // Zero-extension of a payload cut in the middle of a field.
        #expect(GlobalPositionInt(payload: [0xD2, 0x04, 0, 0, 0x01]).lat == 1)
    }

    @Test func extensionFieldsAndForwardCompatibility() throws {
        let ack = CommandAck(
            command: .componentArmDisarm, result: .accepted, progress: 50, resultParam2: -7,
            targetSystem: 9, targetComponent: 1)
        let payload = ack.encodedPayload()
        #expect(payload.count == CommandAck.maxPayloadLength)
        // A MAVLink 1 style payload (no extensions) decodes with extension fields zero.
        let base = CommandAck(payload: Array(payload.prefix(CommandAck.minPayloadLength)))
        #expect(base.command == .componentArmDisarm && base.result == .accepted)
        #expect(base.progress == 0 && base.resultParam2 == 0 && base.targetSystem == 0)
        // A newer sender's longer payload: unknown trailing bytes are ignored.
        #expect(CommandAck(payload: payload + [1, 2, 3]) == ack)
        // Strings: NUL-terminated or exactly full length.
        let text = Statustext(severity: .warning, text: String(repeating: "x", count: 50))
        #expect(Statustext(payload: text.encodedPayload()).text.count == 50)
        #expect(
            Statustext(payload: Statustext(text: String(repeating: "y", count: 60)).encodedPayload()).text.count == 50)
        #expect(ParamValue(payload: ParamValue(paramId: "SYSID_THISMAV").encodedPayload()).paramId == "SYSID_THISMAV")
    }

    @Test func openEnumsKeepUnknownValuesAndNameKnownOnes() {
        #expect(MAVType.quadrotor.rawValue == 2)
        #expect(MAVType.quadrotor.description == "MAV_TYPE_QUADROTOR")
        #expect(MAVType(rawValue: 250).description == "250")
        #expect(MAVCmd.navTakeoff.rawValue == 22)
        #expect(MAVModeFlag([.safetyArmed, .customModeEnabled]).rawValue == 0x81)
        let hb = Heartbeat(type: MAVType(rawValue: 250), autopilot: .px4, baseMode: [.safetyArmed])
        #expect(Heartbeat(payload: hb.encodedPayload()) == hb)
        #expect(hb.mavlinkVersion == 3)
    }
}
