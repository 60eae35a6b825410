import AttestCore
import Testing

@testable import HTTPClient

/// One reading of a provider's status and one deadline for its call, shared by Apple's and Google's clients.
@Suite struct ProviderAnswerTests {
    @Test(arguments: [
        (200, ProviderAnswer.success), (204, .success), (400, .rejected), (401, .unauthorized), (403, .unauthorized),
        (408, .unavailable), (429, .rateLimited), (500, .unavailable), (503, .unavailable), (599, .unavailable),
        (404, .refused(404)), (304, .refused(304)), (600, .refused(600)),
    ])
    func everyStatusHasOneMeaning(status: Int, answer: ProviderAnswer) {
        #expect(ProviderAnswer(status: status) == answer)
    }

    @Test func aCallGetsTheLeastOfItsTimeoutAndTheDeadlineAndNoneBelowTheMinimum() {
        #expect(ProviderAttempt.timeout(atMost: .seconds(3), deadline: nil) == .seconds(3))
        let far = Deadline.after(.seconds(60))
        #expect(ProviderAttempt.timeout(atMost: .seconds(3), deadline: far) == .seconds(3))
        let near = Deadline.after(.milliseconds(50))
        #expect(ProviderAttempt.timeout(atMost: .seconds(3), deadline: near) == nil)
        #expect(ProviderAttempt.ranOutOfTime(near) && !ProviderAttempt.ranOutOfTime(far))
        #expect(!ProviderAttempt.ranOutOfTime(nil))
    }
}
