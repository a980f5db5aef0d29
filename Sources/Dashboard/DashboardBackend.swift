import ControlProtocol

/// What the dashboard asks of its node: the same typed control requests the control socket answers.
public struct DashboardBackend: Sendable {
    /// Answers one control request.
    public var answer: @Sendable (ControlRequest) async -> ControlResponse

    /// A backend answering through `answer`.
    public init(answer: @escaping @Sendable (ControlRequest) async -> ControlResponse) {
        self.answer = answer
    }
}
