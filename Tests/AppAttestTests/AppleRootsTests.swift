import AttestCore
import Crypto
import Testing

@testable import AppAttest

/// The pinned roots really are Apple's, and the embedded literals equal the committed PEM files.
@Suite struct AppleRootsTests {
    @Test func pinnedAttestationRootIsApples() {
        let root = AppAttestTrust.apple.attestationRoot
        #expect(root.subject == "/CN=Apple App Attestation Root CA/O=Apple Inc./ST=California")
        #expect(
            Bytes.hex(root.sha256Fingerprint)
                == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"
        )
        #expect(Timestamp.format(root.notBefore) == "2020-03-18T18:32:53Z")
        #expect(Timestamp.format(root.notAfter) == "2045-03-15T00:00:00Z")
        #expect((try? root.publicKey())?.curve == .p384)
    }

    @Test func pinnedReceiptRootIsAppleRootCAG3() {
        let root = AppAttestTrust.apple.receiptRoot
        #expect(root.subject == "/CN=Apple Root CA - G3/OU=Apple Certification Authority/O=Apple Inc./C=US")
        #expect(
            Bytes.hex(root.sha256Fingerprint)
                == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
        )
    }

    @Test func embeddedLiteralsMatchTheCommittedPEMFiles() throws {
        var path = #filePath
        while let last = path.last, last != "/" { path.removeLast() }
        let roots = path + "../../Sources/4-Protocols/AppAttest/Roots/"
        let attestation = try Certificate(pemRepresentation: readText(roots + "Apple_App_Attestation_Root_CA.pem"))
        let g3 = try Certificate(pemRepresentation: readText(roots + "Apple_Root_CA_G3.pem"))
        #expect(attestation == AppAttestTrust.apple.attestationRoot)
        #expect(g3 == AppAttestTrust.apple.receiptRoot)
    }
}
