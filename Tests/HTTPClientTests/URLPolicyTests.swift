import Testing

@testable import HTTPClient

@Suite struct URLPolicyTests {
    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"])
    func loopbackHosts(host: String) {
        #expect(URLPolicy.isLoopback(host: host))
    }

    @Test(arguments: [
        "128.0.0.1", "127.0.0.1.example.com", "localhost.example.com", "127.0.0", "127.0.0.256", "10.0.0.1",
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

    @Test func caBundleIsFoundFromTheCandidateList() {
        #expect(CAInfo.systemBundlePath(candidates: ["/nonexistent/a.pem", "/etc/hostname"]) == "/etc/hostname")
        #expect(CAInfo.systemBundlePath(candidates: ["/nonexistent/a.pem"]) == nil)
    }
}
