internal import AttestCore
internal import AttestGateClient
internal import HTTPClient
internal import WireContract

/// Layer 1 (attestation tied to the device ID): iOS, a script minting IDs, Android.
extension Session {
    /// Layer 1 on iOS, through the shipped client: key registration, a bound call, and the same request
    /// sent again by an attacker.
    func genuineIPhone() async throws {
        report.header("Layer 1, iOS: App Attest (generate route, enforce)")
        let registered = await iphone.registerKey()
        report.step(
            "iPhone (genuine)",
            "registers its App Attest key",
            expected: "200 bound",
            got: describe(registered),
            ok: registered == .registered(binding: "bound")
        )
        let first = await iphone.call(Self.generatePath, body: Self.generateBody)
        report.step(
            "iPhone (genuine)",
            "generates cards (assertion bound to the call)",
            expected: "200 with cards",
            got: describe(first),
            ok: servedCards(first)
        )
        guard let sent = await iphone.lastRequest(to: Self.generatePath) else { throw DemoError("nothing was sent") }
        let replayed = try await api.send(
            "POST",
            Self.generatePath,
            headers: sent.headers.filter { $0.name.lowercased() != "content-type" }.map {
                HTTPHeader($0.name, $0.value)
            },
            body: sent.body
        )
        report.step(
            "attacker",
            "replays that exact request (same assertion)",
            expected: "403 attestation_required",
            got: describe(replayed),
            ok: replayed.status == 403 && replayed.errorCode == "attestation_required"
        )
    }

    /// Six fresh UUIDs, no proof (docs/threat-model.md). Monitor serves and logs; enforce refuses.
    func scriptWithMintedIDs() async throws {
        report.header("Layer 1, a script minting device IDs (tutor: monitor, generate: enforce)")
        var served = 0
        for id in minted {
            let answer = try await api.send(
                "POST",
                Self.tutorPath,
                headers: [HTTPHeader(WireHeader.deviceID.name, id)],
                body: Self.tutorBody
            )
            if answer.status == 200 { served += 1 }
        }
        let suffixes = Set(minted.map { "…" + $0.suffix(6) })
        var logged = 0
        for _ in 0..<30 {  // the bootstraps' lines reach the harness a moment after the answers
            logged = try await stack.decisionLines().filter {
                $0["decision"]?.stringValue == "would_block" && $0["route"]?.stringValue == "tutor"
                    && suffixes.contains($0["device"]?.stringValue ?? "")
            }.count
            if logged >= minted.count { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        report.step(
            "script",
            "6 minted IDs, no proof, on tutor (monitor)",
            expected: "6x 200, 6 would_block logged",
            got: "\(served)x 200, \(logged) would_block logged",
            ok: served == minted.count && logged == minted.count
        )
        var refused = 0
        for id in minted {
            let answer = try await api.send(
                "POST",
                Self.generatePath,
                headers: [HTTPHeader(WireHeader.deviceID.name, id)],
                body: Self.generateBody
            )
            if answer.status == 403 && answer.errorCode == "attestation_required" { refused += 1 }
        }
        report.step(
            "script",
            "the same 6 IDs on generate (enforce)",
            expected: "6x 403 attestation_required",
            got: "\(refused)x 403 attestation_required",
            ok: refused == minted.count
        )
    }

    /// Layer 1 on Android: Play Integrity with requestHash = SHA-256(client data).
    func android() async throws {
        report.header("Layer 1, Android: Play Integrity (generate route, enforce)")
        let genuine = try await pixel.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (genuine)",
            "generates cards (token bound to the call)",
            expected: "200 with cards",
            got: describe(genuine),
            ok: genuine.status == 200 && cards(genuine) > 0
        )
        let refused = try await tampered.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (tampered)",
            "re-signed app on a rooted phone",
            expected: "403 attestation_required",
            got: describe(refused),
            ok: refused.status == 403 && refused.errorCode == "attestation_required"
        )
    }
}
