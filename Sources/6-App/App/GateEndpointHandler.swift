internal import AttestCore
internal import Gate
internal import LambdaRuntime
internal import WireContract

/// Serves one of the gate's own endpoints (`/v1/attest/challenge`, `/v1/attest/keys`).
struct GateEndpointHandler: APIRouteHandler {
    enum Endpoint: Sendable {
        case challenge(ChallengeEndpoint)
        case keys(KeyRegistration)
    }

    let endpoint: Endpoint
    let clock: any WallClock

    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
        let now = clock.now()
        let device = request.headers[WireHeader.deviceID.key]
        let deadline = context.workDeadline(now: now)
        let answer = await Deadline.$current.withValue(deadline) {
            switch endpoint {
            case .challenge(let challenge):
                await challenge.handle(deviceHeader: device, body: request.body, now: now, logger: context.logger)
            case .keys(let registration):
                await registration.handle(deviceHeader: device, body: request.body, now: now, logger: context.logger)
            }
        }
        return APIGatewayResponse(answer)
    }
}
