import Glibc
import HTTPClient
import TestSupport
import Testing

/// The https path end to end: a throw-away self-signed certificate (openssl), a Python TLS server on
/// 127.0.0.1, and CurlTransport verifying the peer against the CA bundle it is given.
@Suite(.serialized) struct CurlTLSTests {
    static let directory = "/tmp/attestgate-tls-\(getpid())"
    static let server = """
        import http.server, ssl, sys
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers()
                self.wfile.write(b"tls")
            def log_message(self, *a): pass
        s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(sys.argv[1], sys.argv[2])
        s.socket = c.wrap_socket(s.socket, server_side=True)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """

    static func environment() -> [String: String] {
        ["PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"]
    }

    /// Makes the certificate (CN and SAN localhost/127.0.0.1) and starts the server; returns its port.
    static func start() async throws -> (ChildProcess, Int, String) {
        mkdir(directory, 0o700)
        let cert = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let openssl = try ChildProcess(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ],
            environment: environment()
        )
        _ = await openssl.nextLine()
        await openssl.stop()
        try #require(access(cert, R_OK) == 0, "openssl did not write a certificate")
        let server = try ChildProcess(["python3", "-c", Self.server, cert, key], environment: environment())
        let line = await server.nextLine()
        let port = try #require(line.flatMap { Int($0) }, "the TLS server did not start")
        return (server, port, cert)
    }

    @Test func verifiedAgainstTheGivenBundleAndRefusedWithoutIt() async throws {
        let (server, port, cert) = try await Self.start()
        defer {
            server.terminate()
            unlink(cert)
            unlink(Self.directory + "/key.pem")
            rmdir(Self.directory)
        }
        let trusted = CurlTransport(caBundlePath: cert)
        for host in ["localhost", "127.0.0.1"] {
            let response = try await trusted.send(HTTPRequest(method: "GET", url: "https://\(host):\(port)/"))
            #expect(response.status == 200)
            #expect(response.body == Array("tls".utf8))
        }
        // The system bundle does not know this certificate: the peer is not verified.
        await #expect(throws: HTTPError(.tlsFailed)) {
            _ = try await CurlTransport().send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/"))
        }
    }
}
