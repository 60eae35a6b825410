import Testing

@testable import SigV4

/// Step 1's header values: trimmed, each inner run of whitespace one space (the suite's multi-line and
/// spaced values cover the common cases; these cover the edges).
@Suite struct CanonicalHeaderTests {
    @Test(arguments: [
        ("value", "value"),
        ("  value  ", "value"),
        ("a   b\t\tc", "a b c"),
        ("value1\n  value2\n     value3", "value1 value2 value3"),
        ("a\r\nb", "a b"),
        ("", ""),
        (" \t\n ", ""),
        ("é  ü", "é ü"),
    ])
    func valuesAreTrimmedAndTheirWhitespaceCollapsed(value: String, expected: String) {
        #expect(Canonical.collapsedWhitespace(value) == expected)
    }

    @Test func namesAreLowerCasedSortedAndRepeatsJoined() {
        let canonical = Canonical.headers([("X-B", " 2 "), ("host", "h"), ("x-b", "3"), ("X-A", "1")])
        #expect(canonical.block == "host:h\nx-a:1\nx-b:2,3\n")
        #expect(canonical.signed == "host;x-a;x-b")
    }
}
