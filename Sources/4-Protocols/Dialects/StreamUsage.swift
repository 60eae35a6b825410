internal import AttestCore

/// Reads a provider's final usage from its server-sent event stream, one chunk or event at a time,
/// holding at most one event's data (`maxEventBytes`) and never the stream.
///
/// OpenAI chat: the chunk with `usage` before `[DONE]` (`stream_options.include_usage`, which `prepare`
/// sets); OpenAI Responses: the `response.completed` / `response.incomplete` / `response.failed` event;
/// Anthropic: `message_start`'s usage updated by the cumulative `message_delta` usage; Gemini: the
/// `usageMetadata` of the chunk that finishes the candidate. `usage` stays `nil` until the stream has
/// said its final usage, and for `opaque`. The last report wins: an event that reports usage the reader
/// cannot read (a count that is not one, JSON that does not parse, an event larger than `maxEventBytes`)
/// clears what an earlier event said, so a stream whose final report is unreadable settles to nothing
/// (the gate keeps the reservation) rather than to an earlier, lower count.
package struct StreamUsage: Sendable {
    package let dialect: Dialect
    package let maxEventBytes: Int

    /// The final usage, once the stream has reported it; `nil` before, or when it never does.
    package private(set) var usage: Usage?

    private var line: [UInt8] = []
    private var lineTooLong = false
    private var skippingLine = false
    private var afterCarriageReturn = false
    private var eventType: String?
    private var data: [UInt8] = []
    /// Where the event's data starts in `data`: the event's first data line is taken over whole, field
    /// name included (the line's buffer becomes the event's), instead of being copied a second time.
    private var dataStart = 0
    private var hasData = false
    private var dataTooLong = false
    private var anthropic = AnthropicStreamState()
    private var geminiLatest: Usage?

    /// - Parameters:
    ///   - dialect: the route's dialect.
    ///   - maxEventBytes: the largest event data read (OpenAI's terminal Responses event repeats the
    ///     whole response, instructions included: give it room for the route's `maxRequestBytes` and
    ///     output).
    package init(dialect: Dialect, maxEventBytes: Int = 2_097_152) {
        self.dialect = dialect
        self.maxEventBytes = maxEventBytes
    }

    /// Feeds raw stream bytes as they arrive (any split: lines and events may span chunks). Lines end
    /// in LF, CRLF or CR and a blank line ends an event (the HTML "server-sent events" format).
    package mutating func feed(_ bytes: some Sequence<UInt8>) {
        guard dialect.isKnown else { return }
        if bytes.withContiguousStorageIfAvailable({ feed(buffer: $0) }) == nil {
            Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) }
        }
    }

    /// Takes a line's bytes a run at a time (up to the next CR or LF), not one by one: a long event's
    /// data costs one bounded append, not a Swift loop iteration and a capacity check per byte. The line
    /// ends are found with `memchr` (vector compares), once for LF and once for a CR before it.
    private mutating func feed(buffer: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < buffer.count {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if buffer[index] == 0x0A {
                    index += 1
                    continue
                }
            }
            let end = Bytes.lineEnd(in: buffer, from: index)
            if end > index { append(UnsafeBufferPointer(rebasing: buffer[index..<end])) }
            guard end < buffer.count else { return }
            endLine()
            afterCarriageReturn = buffer[end] == 0x0D
            index = end + 1
        }
    }

    /// Part of the current line: kept up to `maxEventBytes + 16` bytes (beyond, the line is too long).
    private mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard !skippingLine else { return }
        let before = line.count
        let room = max(0, maxEventBytes + 16 - before)
        line.append(contentsOf: run.prefix(room))
        if run.count > room { lineTooLong = true }
        // A data line of an event type never read (the text repeated by `response.output_text.done`,
        // say) is dropped as it arrives instead of being held to its end.
        if before < 5, line.count >= 5, line.starts(with: Self.dataField), !wants(eventType) {
            skippingLine = true
            line.removeAll(keepingCapacity: true)
        }
    }

    /// Ends the stream: an event not closed by a blank line is discarded, as the format says, and the
    /// buffers are released.
    package mutating func finish() {
        line = []
        skippingLine = false
        data = []
        dataStart = 0
        hasData = false
        dataTooLong = false
        eventType = nil
    }

    /// Feeds one whole event, for a caller that splits the stream itself.
    /// - Parameters:
    ///   - eventType: the `event:` field, if any.
    ///   - data: the `data:` lines joined by `\n`.
    package mutating func receive(eventType: String?, data: [UInt8]) {
        receive(eventType: eventType, slice: data[...])
    }

    private mutating func receive(eventType: String?, slice data: ArraySlice<UInt8>) {
        guard dialect.isKnown, wants(eventType) else { return }
        guard data.count <= maxEventBytes else { return forgetUsage() }
        guard data.first == UInt8(ascii: "{"), mayMatter(data) else { return }
        guard let json = try? JSONValue.parse(data) else { return forgetUsage() }
        switch dialect {
        case .opaque:
            return
        case .openAIChat:
            if let reported = json["usage"], reported != .null { usage = OpenAIChat.usage(json) }
        case .openAIResponses:
            guard let type = json["type"]?.stringValue, OpenAIResponses.terminalEvents.contains(type),
                let response = json["response"]
            else { return }
            usage = OpenAIResponses.usage(response)
        case .anthropicMessages:
            anthropic.receive(json)
            usage = anthropic.finalUsage
        case .geminiGenerate:
            if let reported = json["usageMetadata"], reported != .null { geminiLatest = GeminiGenerate.usage(json) }
            if GeminiGenerate.isFinal(json) || usage != nil { usage = geminiLatest }
        }
    }

    /// An event that may have reported usage could not be read: what earlier events said is no longer
    /// the latest report (a later readable one counts again; Anthropic's are cumulative).
    private mutating func forgetUsage() {
        usage = nil
        geminiLatest = nil
    }

    /// Whether an event can change what is read: every dialect's usage sits under a key starting `"usage`
    /// (`usage`, `usageMetadata`), and a Gemini chunk with a `"finishReason"` makes the latest usage final.
    /// The text deltas, nearly all of a stream, have neither and are not parsed. A provider spelling the
    /// key with escapes would only lose the settle: the reservation is then kept, as for missing usage.
    private func mayMatter(_ data: ArraySlice<UInt8>) -> Bool {
        data.withUnsafeBufferPointer { buffer in
            Bytes.contains(buffer, Self.usageKey)
                || (dialect == .geminiGenerate && Bytes.contains(buffer, Self.finishReasonKey))
        }
    }

    private static let usageKey = Array(#""usage"#.utf8)
    private static let finishReasonKey = Array(#""finishReason""#.utf8)

    /// Skips the events whose data the dialect never reads (a Responses stream's deltas, Anthropic's
    /// content blocks), so only the few events with usage are parsed.
    private func wants(_ eventType: String?) -> Bool {
        guard let eventType else { return true }
        switch dialect {
        case .openAIResponses: return OpenAIResponses.terminalEvents.contains(eventType)
        case .anthropicMessages: return eventType == "message_start" || eventType == "message_delta"
        default: return true
        }
    }

    /// The bytes of the current line and event held now.
    var heldBytes: Int { line.count + data.count - dataStart }

    private static let dataField = Array("data:".utf8)

    /// Buffers up to this size are kept for the next line and event (a typical event's data, so an
    /// event costs neither an allocation nor the array's growth copies); larger ones are given back.
    private static let keptCapacity = 64 * 1024

    private mutating func endLine() {
        defer {
            line.removeAll(keepingCapacity: line.capacity <= Self.keptCapacity)
            lineTooLong = false
            skippingLine = false
        }
        if skippingLine { return }
        if line.isEmpty {
            if hasData {
                if !dataTooLong {
                    receive(eventType: eventType, slice: data[dataStart...])
                } else if dialect.isKnown, wants(eventType) {
                    forgetUsage()  // too large to read: it may have been the last report
                }
            }
            data.removeAll(keepingCapacity: data.capacity <= Self.keptCapacity)
            dataStart = 0
            hasData = false
            dataTooLong = false
            eventType = nil
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = line[..<colon]
        var value = line[min(colon + 1, line.endIndex)...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            if !hasData, !lineTooLong, value.count <= maxEventBytes {
                // The event's first data line (nearly always its only one): its buffer becomes the event's.
                dataStart = value.startIndex
                swap(&data, &line)
                hasData = true
                return
            }
            if hasData { data.append(0x0A) }
            hasData = true
            if lineTooLong || data.count - dataStart + value.count > maxEventBytes {
                dataTooLong = true
            } else if !dataTooLong {
                data.append(contentsOf: value)
            }
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        default:
            break  // comments (`: ping`), `id:`, `retry:`
        }
    }
}

/// Anthropic's stream usage: `message_start` carries the input side, each `message_delta` the
/// cumulative counts (and, on newer models, the input side again); final once a delta has arrived.
struct AnthropicStreamState: Sendable {
    private var fields: [String: JSONValue] = [:]
    private var sawStart = false
    private var sawDelta = false

    mutating func receive(_ event: JSONValue) {
        switch event["type"]?.stringValue {
        case "message_start":
            guard let usage = event["message"]?["usage"]?.objectValue else { return }
            merge(usage)
            sawStart = true
        case "message_delta":
            guard sawStart, let usage = event["usage"]?.objectValue else { return }
            merge(usage)
            sawDelta = true
        default:
            return
        }
    }

    var finalUsage: Usage? { sawDelta ? AnthropicMessages.usage(fields) : nil }

    private mutating func merge(_ usage: [String: JSONValue]) {
        for (key, value) in usage where value != .null { fields[key] = value }
    }
}
