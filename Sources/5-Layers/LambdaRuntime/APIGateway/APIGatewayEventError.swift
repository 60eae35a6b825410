/// Why an event could not be read as an API Gateway request. Every reason answers
/// `400 {"error":"invalid_request"}`; the slug goes to logs only.
package struct APIGatewayEventError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The event is not JSON (or not a JSON object).
        package static let notJSON = Reason("apigw.not_json")
        /// JSON, but none of the three API Gateway shapes.
        package static let notAPIGatewayEvent = Reason("apigw.not_api_gateway_event")
        /// A field has the wrong type (headers not an object, body not a string, ...).
        package static let malformedField = Reason("apigw.malformed_field")
        /// `isBase64Encoded` with a body that is not base64.
        package static let invalidBase64Body = Reason("apigw.invalid_base64_body")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
