import MeshTypes

extension GeofenceAnnouncement {
    /// Reads the body of a geofence message; a fence the checks of ``SharedGeofence`` refuse is a `WireError` naming
    /// the field.
    init(from r: inout WireReader) throws(WireError) {
        let announcer = try r.nodeID("geofence.announcedBy")
        let epoch = try r.u64("geofence.epoch")
        guard try r.tag("geofence.kind", max: 1) == 1 else {
            self.init(announcedBy: announcer, epoch: epoch, fence: nil)
            return
        }
        let floor = try r.i32("geofence.floor")
        let ceiling = try r.i32("geofence.ceiling")
        let countAt = r.offset
        let count = Int(try r.u8("geofence.cornerCount"))
        guard (3...SharedGeofence.maxCorners).contains(count) else {
            throw WireError(
                "geofence.cornerCount at offset \(countAt): expected 3…\(SharedGeofence.maxCorners), found \(count)")
        }
        guard r.remaining >= count * 8 else {
            throw WireError(
                "truncated geofence.corners: expected \(count * 8) bytes for \(count) corners, found \(r.remaining)")
        }
        var corners: [GeoPoint] = []
        for i in 0..<count {
            let lat = try r.i32("geofence.corners[\(i)].latitudeE7")
            let lon = try r.i32("geofence.corners[\(i)].longitudeE7")
            corners.append(GeoPoint(latitudeE7: lat, longitudeE7: lon, altitudeMillimetres: 0))
        }
        do {
            let fence = try SharedGeofence(corners: corners, floorMillimetres: floor, ceilingMillimetres: ceiling)
            self.init(announcedBy: announcer, epoch: epoch, fence: fence)
        } catch {
            throw WireError("geofence.\(error.description)")
        }
    }
}
