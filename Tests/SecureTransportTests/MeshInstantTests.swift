import MeshTypes
import Testing

@testable import SecureTransport

@Suite("MeshInstant")
struct MeshInstantTests {
    @Test func arithmetic() {
        let t = MeshInstant(nanoseconds: 5_000_000_000)
        #expect(t + .milliseconds(250) == MeshInstant(nanoseconds: 5_250_000_000))
        #expect(t - .seconds(1) == MeshInstant(nanoseconds: 4_000_000_000))
        #expect((t + .seconds(2)) - t == .seconds(2))
        #expect(t - (t + .seconds(2)) == .seconds(-2))
        #expect(t + .seconds(-10) == .zero)  // saturates at the origin
        #expect(MeshInstant(nanoseconds: .max - 1) + .seconds(1) == MeshInstant(nanoseconds: .max))
        #expect(MeshInstant.after(.microseconds(3)) == MeshInstant(nanoseconds: 3_000))
        #expect(t < t + .nanoseconds(1))
    }
}
