internal import AttestCore

extension Dialect {
    /// The usage a provider reported in a buffered (non-streamed) JSON answer.
    /// - Parameter answer: the provider's answer body.
    /// - Returns: the tokens, or `nil` when the answer has no readable usage (the gate then keeps the
    ///   call's reservation).
    package func usage(fromAnswer answer: [UInt8]) -> Usage? {
        nil
    }
}
