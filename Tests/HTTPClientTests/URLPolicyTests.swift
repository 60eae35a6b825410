import Testing

@testable import HTTPClient

@Suite struct URLPolicyTests {
    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "127.255.255.255", "127.00.0.001"])
    func loopbackHosts(host: String) {
        #expect(URLPolicy.isLoopback(host: host))
    }

    @Test(arguments: [
        "128.0.0.1", "127.0.0.1.example.com", "localhost.example.com", "127.0.0", "127.0.0.256", "10.0.0.1",
        "0127.0.0.1", "127.0.0.1.", ".127.0.0.1", "127..0.1", "127.0.0.1000", "1270.0.0.1", "127.0.0.+1",
        "127.0.0.1 ", "", "127.0.0.0.1", "١٢٧.0.0.1",
    ])
    func notLoopback(host: String) {
        #expect(!URLPolicy.isLoopback(host: host))
    }

    @Test func httpsAnywhereHttpOnlyLoopback() throws {
        #expect(try URLPolicy.check("https://dynamodb.eu-west-1.amazonaws.com/").scheme == "https")
        #expect(try URLPolicy.check("http://127.0.0.1:9001/2018-06-01/runtime/invocation/next").isLoopback)
        #expect(try URLPolicy.check("http://[::1]:8000/").isLoopback)
        #expect(throws: HTTPError(.protocolRefused)) { try URLPolicy.check("http://169.254.169.254/") }
    }

    @Test func theOriginSpellsOutThePort() throws {
        #expect(
            try URLPolicy.check("http://127.0.0.1:9001/2018-06-01/runtime/invocation/next").origin
                == "http://127.0.0.1:9001"
        )
        #expect(
            try URLPolicy.check("https://Dynamodb.eu-west-1.amazonaws.com/").origin
                == "https://dynamodb.eu-west-1.amazonaws.com:443"
        )
        #expect(try URLPolicy.check("http://localhost/x?y=1").origin == "http://localhost:80")
    }

    /// An idle handle is taken by the origin it last served (its connection there is kept), else the most
    /// recently returned one.
    @Test func thePoolHandsOutTheHandleOfTheSameOrigin() {
        let pool = CurlHandlePool(capacity: 4)
        let store = pool.take(for: "http://127.0.0.1:8000")
        let runtime = pool.take(for: "http://127.0.0.1:9001")
        pool.giveBack(runtime)
        pool.giveBack(store)
        #expect(pool.take(for: "http://127.0.0.1:9001") === runtime)
        #expect(pool.take(for: "https://api.example.com:443") === store)
        #expect(store.origin == "https://api.example.com:443")
        #expect(pool.idleCount == 0)
    }

    @Test func caBundleIsFoundFromTheCandidateList() {
        #expect(CAInfo.systemBundlePath(candidates: ["/nonexistent/a.pem", "/etc/hostname"]) == "/etc/hostname")
        #expect(CAInfo.systemBundlePath(candidates: ["/nonexistent/a.pem"]) == nil)
    }
}
