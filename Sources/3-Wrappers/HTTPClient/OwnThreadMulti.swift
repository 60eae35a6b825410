internal import CCurl
internal import CShims

/// The streamed transfers of the task `OwnThreadTransfers` marks (a Lambda invocation's own), run by that
/// task on the thread it runs on, in one libcurl multi handle: the provider's download and the Runtime
/// API's streamed POST side by side, each piece going from the download's write callback into the POST's
/// body and out in the same `curl_multi_perform` (no thread to wake between them, none to wake the task).
///
/// Nothing runs these transfers but the owner's waits: `ResponseBodyStream.head()` / `next()` /
/// `forwardingEnded()`, `RequestBodyStream.write` when full and `StartedUpload.response()` call `drive`,
/// which blocks the owner's thread in libcurl until what it waits for has happened, as the owner's buffered
/// requests block in `curl_easy_perform`. Backpressure is a pause, never a blocked thread: a download
/// whose reader (or whose POST) is behind is paused in its write callback, a POST with nothing to send in
/// its read callback, and each goes on once the other side has moved.
///
/// One per run loop (`OwnThreadTransfers.run(streamingIn:)`), for the loop's lifetime, so its connections
/// (the provider's, the Runtime API's for streamed POSTs) are kept from one invocation to the next; the
/// multi handle is freed with it.
///
/// `@unchecked Sendable`: used only by its owner task, one invocation at a time (`OwnThreadTransfers`).
public final class OwnThreadMulti: @unchecked Sendable {

    /// Easy handles used only here, never with `curl_easy_perform`: adding a handle that ran one to a multi
    /// frees that handle's own connection cache, and the connections here live in the multi's cache.
    let pool = CurlHandlePool(capacity: 4)
    private let multi: UnsafeMutableRawPointer
    private var entries: [Entry] = []
    /// Added from inside a callback (libcurl refuses `curl_multi_add_handle` there): added between steps.
    private var pending: [Entry] = []

    /// One transfer in the multi and how the driver treats it between two steps.
    final class Entry {
        let handle: CurlEasyHandle
        /// Paused in a callback and able to go on now.
        let mayResume: () -> Bool
        /// Clears the pause mark, just before the transfer is let go on.
        let resumed: () -> Void
        /// To be stopped now (cancelled, or paused past its deadline); its connection is closed.
        let shouldStop: () -> Bool
        /// A POST's body: whether it has room (at most its capacity unsent); nil for a download.
        let room: (() -> Bool)?
        /// The transfer is over (its code and libcurl's message); runs once, after it left the multi.
        let finished: (CURLcode, String) -> Void
        /// The objects its callbacks reach through raw pointers, kept alive while it runs.
        let keptAlive: Any
        fileprivate let errorBuffer: UnsafeMutablePointer<CChar>

        init(
            handle: CurlEasyHandle,
            keptAlive: Any,
            room: (() -> Bool)? = nil,
            mayResume: @escaping () -> Bool,
            resumed: @escaping () -> Void,
            shouldStop: @escaping () -> Bool,
            finished: @escaping (CURLcode, String) -> Void
        ) {
            self.handle = handle
            self.keptAlive = keptAlive
            self.room = room
            self.mayResume = mayResume
            self.resumed = resumed
            self.shouldStop = shouldStop
            self.finished = finished
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        }

        deinit { errorBuffer.deallocate() }
    }

    public init() {
        CurlGlobal.ensureInitialised()
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
        self.multi = multi
    }

    deinit {
        stopAll()
        curl_multi_cleanup(multi)
    }

    /// The longest one wait for the sockets lasts: cancellations and deadlines set from elsewhere (a
    /// stream's `sendBy`, a stalled reader's deadline) are looked at between waits.
    static let longestWait: Int32 = 50

    /// Takes `entry` in at the next step (callable from a callback of another of its transfers).
    func add(_ entry: Entry) {
        pending.append(entry)
    }

    /// Whether every POST body here has room: a download that forwards into one waits (paused) while not.
    var uploadsHaveRoom: Bool {
        entries.allSatisfy { $0.room?() ?? true } && pending.allSatisfy { $0.room?() ?? true }
    }

    /// Runs the transfers until `done` holds, or nothing is left running that could make it hold.
    func drive(until done: () -> Bool) {
        // What is already there is taken as is: a step now could send half of what the caller is about to
        // add to (the prelude alone, then its first piece in a second chunk).
        if done() { return }
        while true {
            admitPending()
            stopOrResume()
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            reapFinished()
            if done() { return }
            admitPending()
            if entries.isEmpty { return }
            // A transfer that can go on again goes on at once; otherwise wait for a socket or a timer.
            if entries.contains(where: { $0.mayResume() || $0.shouldStop() }) { continue }
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, Self.longestWait, &ready)
        }
    }

    /// Stops every transfer still here (their connections are closed): the owner's response is over, so
    /// nothing is left to read them.
    func stopAll() {
        admitPending()
        for entry in entries { finish(entry, CURLE_ABORTED_BY_CALLBACK, "stopped") }
    }

    private func admitPending() {
        while !pending.isEmpty {
            let entry = pending.removeFirst()
            CurlTransport.check(cshim_curl_setopt_ptr(entry.handle.raw, CURLOPT_ERRORBUFFER, entry.errorBuffer))
            guard curl_multi_add_handle(multi, entry.handle.raw) == CURLM_OK else {
                CurlTransport.check(cshim_curl_setopt_ptr(entry.handle.raw, CURLOPT_ERRORBUFFER, nil))
                entry.finished(CURLE_FAILED_INIT, "curl_multi_add_handle failed")
                continue
            }
            entries.append(entry)
        }
    }

    private func stopOrResume() {
        for entry in entries where entry.shouldStop() {
            // Removed before its end: libcurl closes its connection.
            finish(entry, CURLE_ABORTED_BY_CALLBACK, "stopped")
        }
        for entry in entries where entry.mayResume() {
            entry.resumed()
            // libcurl may run the entry's callbacks inside this call (a paused download's kept bytes).
            _ = curl_easy_pause(entry.handle.raw, 0)  // CURLPAUSE_CONT
        }
    }

    private func reapFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE,
                let entry = entries.first(where: { $0.handle.raw == message.pointee.easy_handle })
            else { continue }
            let code = message.pointee.data.result
            finish(entry, code, String(cString: entry.errorBuffer))
        }
    }

    private func finish(_ entry: Entry, _ code: CURLcode, _ message: String) {
        _ = curl_multi_remove_handle(multi, entry.handle.raw)
        CurlTransport.check(cshim_curl_setopt_ptr(entry.handle.raw, CURLOPT_ERRORBUFFER, nil))
        entries.removeAll { $0 === entry }
        entry.finished(code, message)
    }
}
