internal import Dispatch
internal import Glibc
internal import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: real sockets, one thread per connection.
///
/// Each request is answered by the `respond` closure; it can also make the server hang (to exercise
/// timeouts) or close without answering. Only what tests need: `Content-Length` bodies, no chunking.
public final class LoopbackHTTPServer: Sendable {
    /// A request as the server received it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What to do with a request.
    public enum Reply: Sendable {
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// Accept the request and never answer (until the server stops or `seconds` pass).
        case hang(seconds: Int)
        /// Close the connection without a response.
        case close
        /// Write these bytes as they are, then close (e.g. a body without `Content-Length`).
        case raw([UInt8])
        /// Wait, then answer (a provider still generating when its client gave up).
        case respondAfter(milliseconds: Int, status: Int, body: [UInt8])
    }

    public let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let connections = Atomic<Int>(0)
    private let received = Mutex<[Request]>([])
    private let respond: @Sendable (Request) -> Reply

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public init(respond: @escaping @Sendable (Request) -> Reply) throws {
        self.respond = respond
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError(what: "socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            close(fd)
            throw ServerError(what: "bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        DispatchQueue(label: "loopback-server.accept").async { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// How many connections were accepted (keep-alive reuse shows as fewer connections than requests).
    public var connectionCount: Int { connections.load(ordering: .sequentiallyConsistent) }

    /// Every request received so far.
    public var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting; hanging connections are released.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    /// A port on 127.0.0.1 with nothing listening (bound, then closed), for "connection refused".
    public static func unusedPort() throws -> Int {
        let server = try LoopbackHTTPServer { _ in .close }
        let port = server.port
        server.stop()
        return port
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            connections.add(1, ordering: .sequentiallyConsistent)
            DispatchQueue(label: "loopback-server.connection").async { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, &buffer) {
            received.withLock { $0.append(request) }
            switch respond(request) {
            case .close:
                return
            case .raw(let bytes):
                _ = writeAll(fd, bytes)
                return
            case .hang(let seconds):
                var waited = 0
                while waited < seconds * 10 && !stopped.load(ordering: .sequentiallyConsistent) {
                    usleep(100_000)
                    waited += 1
                }
                return
            case .respondAfter(let milliseconds, let status, let body):
                usleep(useconds_t(milliseconds) * 1000)
                let head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.count)\r\n\r\n"
                guard writeAll(fd, Array(head.utf8) + body) else { return }
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "\r\n"
                guard writeAll(fd, Array(head.utf8) + body) else { return }
            }
        }
    }

    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while true {
            if headerEnd == nil, let range = buffer.firstRange(of: separator) { headerEnd = range.upperBound }
            if let end = headerEnd {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = head.split(separator: "\r\n").map(String.init)
                guard !lines.isEmpty else { return nil }
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                let headers = lines.compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    let value = line[line.index(after: colon)...].drop { $0 == " " }
                    return (String(line[..<colon]), String(value))
                }
                let length =
                    headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
                if buffer.count - end >= length {
                    let body = Array(buffer[end..<(end + length)])
                    buffer.removeFirst(end + length)
                    return Request(
                        method: String(requestLine[0]),
                        path: String(requestLine[1]),
                        headers: headers,
                        body: body
                    )
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// A socket call failed while starting the server.
    public struct ServerError: Error {
        public var what: String
    }
}
