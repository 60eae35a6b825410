/// The gate's own reason slugs, in one place (like the verifiers' `Reason` structs): what a refusal or a
/// failure logs and counts, never what the client is told (docs/gate.md). The slug is the raw value.
///
/// Evidence and store errors carry slugs as strings because they also carry the verifiers' and the AWS
/// clients' reasons (`appattest.*`, `play.*`, `aws.*`); the gate's own are named here, so no call site
/// spells one.
package struct GateReason: Sendable, Hashable, CustomStringConvertible {
    /// The bounded slug (`challenge.malformed`).
    package let slug: String

    private init(_ slug: String) { self.slug = slug }

    package var description: String { slug }

    // Layer 1: the challenge and the binding.

    /// The `X-Attest-Challenge` header is missing, not base64, or not 32 bytes.
    package static let challengeMalformed = GateReason("challenge.malformed")
    /// The challenge was never issued to this device, is spent or has expired.
    package static let challengeUnspendable = GateReason("challenge.unspendable")
    /// The device already holds its daily number of challenges.
    package static let challengeIssueBound = GateReason("challenge.issue_bound")
    /// `X-Attest-Client-Data` is missing or not the four-field document (request binding).
    package static let clientDataMalformed = GateReason("binding.client_data_malformed")
    /// The client data names another challenge than `X-Attest-Challenge`.
    package static let challengeMismatch = GateReason("binding.challenge_mismatch")
    /// The client data names another method.
    package static let methodMismatch = GateReason("binding.method_mismatch")
    /// The client data names another path.
    package static let pathMismatch = GateReason("binding.path_mismatch")

    // The fraud-risk metric (docs/appattest.md "The fraud-risk metric"): `tierReason` slugs.

    /// A verified receipt's metric is above `RISK_METRIC_MAX`: `repeat`, and bit 1 where a token is at hand.
    package static let riskFlagged = GateReason("risk.flagged")
    /// Our check refused the attestation's receipt and Apple has not returned a verified one: `repeat` (the
    /// attestation's signature does not cover the receipt, so it is request content).
    package static let riskUnverified = GateReason("risk.unverified")
    /// Apple's receipt endpoint gave no verified receipt (down, refusing, the budget spent): `unknown`.
    package static let riskUnavailable = GateReason("risk.unavailable")
    /// The client data hashes another body.
    package static let bodyMismatch = GateReason("binding.body_mismatch")
    /// No proof header at all.
    package static let noProof = GateReason("gate.no_proof")

    // Layer 1: the providers, as the gate sees them.

    /// An assertion, but App Attest is not configured or the device has no registered key.
    package static let noRegisteredKey = GateReason("appattest.no_registered_key")
    /// `X-App-Attest-Key-Id` is not base64 or not the device's registered key.
    package static let keyNotRegistered = GateReason("appattest.key_not_registered")
    /// The key is registered to another device ID.
    package static let keyOwnedByOtherDevice = GateReason("appattest.key_owned_by_other_device")
    /// `X-App-Attest-Assertion` is not base64, or too long.
    package static let assertionMalformed = GateReason("appattest.assertion_malformed")
    /// The registered key was attested for another App Attest environment than the one configured now.
    package static let keyEnvironmentMismatch = GateReason("appattest.key_environment_mismatch")
    /// The registered key's App ID is not one this deployment serves.
    package static let keyAppIDMismatch = GateReason("appattest.key_app_id_mismatch")
    /// The stored public key does not load (or verification failed other than with an App Attest reason).
    package static let storedKeyUnusable = GateReason("appattest.stored_key_unusable")
    /// The key was replaced (rebound) before this call's counter write landed.
    package static let counterNotAdvanced = GateReason("appattest.counter_not_advanced")
    /// A Play Integrity token while Play Integrity is not configured.
    package static let playNotConfigured = GateReason("play.not_configured")
    /// The Play verifier refused without naming a reason.
    package static let playRejected = GateReason("play.rejected")
    /// DeviceCheck could not answer.
    package static let deviceCheckUnavailable = GateReason("devicecheck.unavailable")
    /// DeviceCheck refused the token.
    package static let deviceCheckRejected = GateReason("devicecheck.rejected")
    /// DeviceCheck is switched off: it abstains.
    package static let deviceCheckOff = GateReason("devicecheck.off")

    // Device marks (docs/appattest.md "Device marks"): the registration's `tierReason`.

    /// No mark (or one older than `DEVICE_MARK_MONTHS`), and bit 0 written because the tier is `first`.
    package static let markClear = GateReason("mark.clear")
    /// A mark in force on the physical device: `repeat`.
    package static let markSet = GateReason("mark.set")
    /// No `deviceCheckToken`, or Apple refused it as malformed: `repeat`.
    package static let markNoToken = GateReason("mark.no_token")
    /// The two bits could not be read or bit 0 could not be written: `unknown`.
    package static let markUnavailable = GateReason("mark.unavailable")
    /// A device ID rebinding its own key keeps its settled tier.
    package static let tierKept = GateReason("tier.kept")

    // Layer 2: a device ID's tier inferred on a metered call (no tier stored; docs/gate.md "Device tiers").

    /// Tiering is off for the call's platform: `first`, as before device tiers.
    package static let tierOff = GateReason("tier.off")
    /// An App Attest key registered before device marks were turned on: `first`, until its next due risk
    /// refresh records its tier (also the reason that refresh stores).
    package static let tierLegacyKey = GateReason("tier.legacy_key")
    /// A `first` whose DeviceCheck mark is older than `DEVICE_MARK_MONTHS`, on a call that could not renew it:
    /// metered as `unknown` (`onUnknownDevice`).
    package static let tierMarkExpired = GateReason("tier.mark_expired")
    /// A `first` whose mark had expired, renewed on a metered call: bit 0 written again, `tier_marked` this month.
    package static let markRenewed = GateReason("mark.renewed")
    /// Tiering is on and nothing proved a first free tier: `repeat` (request content never yields `first`).
    package static let tierUnproven = GateReason("tier.unproven")

    // Device tiers: Play Integrity's device recall (Android, `PLAY_DEVICE_RECALL=on`).

    /// The verdict's `bitFirst` was clear and this call wrote it: the device ID has the first tier.
    package static let recallClear = GateReason("recall.clear")
    /// The verdict's `bitFirst` was set: another device ID on this phone had the first tier.
    package static let recallSet = GateReason("recall.set")
    /// No recall values in the verdict, or the write failed: the tier is `unknown`.
    package static let recallUnavailable = GateReason("recall.unavailable")

    // Layer 3: the upstream call.

    /// The invocation has no time left for the upstream call: it is not sent.
    package static let upstreamNoTimeLeft = GateReason("upstream.no_time_left")

    // The stores.

    /// A key row that does not decode.
    package static let keyRowMalformed = GateReason("store.key_row_malformed")
    /// A profile row whose `tier` is none of `first`, `repeat`, `unknown`.
    package static let profileRowMalformed = GateReason("store.profile_row_malformed")
    /// A key bind's answer carries no `replaced` marker: its outcome is unknown.
    package static let keyBindUnconfirmed = GateReason("store.key_bind_unconfirmed")
    /// The per-device challenge count kept losing its conditional write.
    package static let challengeIssueCountContended = GateReason("store.challenge_issue_count_contended")
    /// A store failed in a way no other slug names.
    package static let storeUnexpected = GateReason("store.unexpected")
}
