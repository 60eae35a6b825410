public import AttestCore
internal import Dispatch
internal import Glibc
public import HTTPClient

/// `local-harness/fake_google.py`, started by a test on a free loopback port and stopped in `stop()`.
///
/// The service account (and the DeviceCheck `.p8`, when given) are written to a fresh temporary folder;
/// the fake derives the public halves from them, as Google and Apple hold only the public keys.
public final class FakeGoogleProcess: Sendable {
    public let port: Int
    public let folder: String
    private let pid: pid_t

    public static let script: String = {
        let root = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        return "/" + root + "/local-harness/fake_google.py"
    }()

    public struct StartError: Error { public let what: String }

    /// Starts the fake and waits (off the cooperative pool) until it listens.
    /// - Parameters:
    ///   - serviceAccountJSON: the service account whose public half checks assertions (nil: none).
    ///   - deviceCheckKeyPEM: the `.p8` whose public half checks DeviceCheck JWTs (nil: every JWT refused).
    ///   - fixtures: folder of `decode_*.json` for `/control/verdict {"fixture": …}`.
    ///   - extraArguments: more command-line options (`--devicecheck-key-id`, `--no-clock-check`, …).
    public static func start(
        serviceAccountJSON: [UInt8]?,
        deviceCheckKeyPEM: String? = nil,
        fixtures: String = ".",
        extraArguments: [String] = []
    ) async throws -> FakeGoogleProcess {
        try await offThePool("fake-google") {
            try FakeGoogleProcess(
                serviceAccountJSON: serviceAccountJSON,
                deviceCheckKeyPEM: deviceCheckKeyPEM,
                fixtures: fixtures,
                extraArguments: extraArguments
            )
        }
    }

    /// Starts the fake, blocking the calling thread until it listens (up to 15 s): see `start`.
    /// - Parameters:
    ///   - serviceAccountJSON: the service account whose public half checks assertions (nil: none).
    ///   - deviceCheckKeyPEM: the `.p8` whose public half checks DeviceCheck JWTs (nil: every JWT refused).
    ///   - fixtures: folder of `decode_*.json` for `/control/verdict {"fixture": …}`.
    ///   - extraArguments: more command-line options (`--devicecheck-key-id`, `--no-clock-check`, …).
    private init(
        serviceAccountJSON: [UInt8]?,
        deviceCheckKeyPEM: String? = nil,
        fixtures: String = ".",
        extraArguments: [String] = []
    ) throws {
        var template = Array("/tmp/attestgate-fake-google-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StartError(what: "mkdtemp") }
        folder = String(cString: made)
        var arguments = ["python3", Self.script, "--fixtures", fixtures, "--port", "0"]
        if let serviceAccountJSON {
            try Self.write(serviceAccountJSON, to: folder + "/service-account.json")
            arguments += ["--service-account", folder + "/service-account.json"]
        }
        if let deviceCheckKeyPEM {
            try Self.write(Array(deviceCheckKeyPEM.utf8), to: folder + "/devicecheck.p8")
            arguments += ["--devicecheck-key", folder + "/devicecheck.p8"]
        }
        arguments += extraArguments

        // Close-on-exec (ChildPipe): a child another test spawns meanwhile must not hold the write end.
        guard let fds = ChildPipe.make() else { throw StartError(what: "pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        // stderr to a file: an orphaned fake must never hold the test runner's output pipe open (the
        // runner would wait for EOF forever). The fake also exits by itself when its parent dies.
        posix_spawn_file_actions_addopen(&actions, 2, folder + "/fake_google.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = ChildPipe.spawning { posix_spawnp(&child, "python3", &actions, nil, &argv, environ) }
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw StartError(what: "posix_spawnp python3: \(spawned)")
        }
        pid = child
        defer { close(fds[0]) }
        // Read "LISTENING <port>\n" within 15 seconds.
        var line = [UInt8]()
        var pollfd = Glibc.pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        while !line.contains(UInt8(ascii: "\n")) {
            guard poll(&pollfd, 1, 15_000) > 0 else { break }
            var byte: UInt8 = 0
            guard read(fds[0], &byte, 1) == 1 else { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters()
        guard text.hasPrefix("LISTENING "), let port = Int(text.dropFirst("LISTENING ".count)) else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw StartError(what: "fake_google.py did not start: \(text)")
        }
        self.port = port
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var tokenURL: String { baseURL + "/token" }

    /// Stops the process (by its pid, SIGKILL) and removes the temporary files; the child is reaped on a
    /// thread of its own, so this never blocks the cooperative pool.
    public func stop() {
        kill(pid, SIGKILL)
        let (pid, folder) = (self.pid, self.folder)
        DispatchQueue(label: "attestgate.test.fake-google-reap").async {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            for name in ["service-account.json", "devicecheck.p8", "fake_google.log"] { unlink(folder + "/" + name) }
            rmdir(folder)
        }
    }

    /// POSTs a control command and expects 200.
    public func control(_ path: String, _ body: JSONValue, transport: some HTTPTransport) async throws {
        let response = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: baseURL + path,
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: body.serializedBytes
            )
        )
        guard response.status == 200 else { throw StartError(what: "control \(path): \(response.status)") }
    }

    /// The fake's request counters.
    public func stats(transport: some HTTPTransport) async throws -> JSONValue {
        try JSONValue.parse(try await transport.send(HTTPRequest(method: "GET", url: baseURL + "/control/stats")).body)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw StartError(what: "fopen \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw StartError(what: "fwrite") }
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
