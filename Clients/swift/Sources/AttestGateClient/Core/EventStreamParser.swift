/// An event-stream parser fed with bytes as they arrive, bounded: a line over `maxLineBytes` or an event whose
/// data passes `maxEventBytes` throws, so a provider that never ends a line cannot grow memory without end.
///
/// As the HTML standard's `EventSource` reads a stream: lines end at LF, CR or CRLF (also when CR and LF
/// arrive in different pieces); a leading byte-order mark is skipped; comment lines (`:`) and unknown fields
/// are ignored; one space after the colon is dropped; an event with no data is not dispatched, and neither
/// is one the stream ended inside of.
struct EventStreamParser: Sendable {
    let maxLineBytes: Int
    let maxEventBytes: Int

    private var line: [UInt8] = []
    private var afterCR = false
    private var firstLine = true
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastID: String?
    private var retry: Int?

    init(maxLineBytes: Int = 1 << 20, maxEventBytes: Int = 4 << 20) {
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
    }

    /// Parses `bytes`; returns the events they complete, in order.
    mutating func feed(_ bytes: [UInt8]) throws(EventStreamError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0a { continue }  // the LF of a CRLF
            }
            switch byte {
            case 0x0d:
                afterCR = true
                try endLine(into: &events)
            case 0x0a:
                try endLine(into: &events)
            default:
                guard line.count < maxLineBytes else {
                    throw EventStreamError(.lineTooLong, detail: "over \(maxLineBytes) bytes")
                }
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) throws(EventStreamError) {
        var text = line[...]
        line.removeAll(keepingCapacity: true)
        if firstLine {
            firstLine = false
            if text.starts(with: [0xef, 0xbb, 0xbf]) { text = text.dropFirst(3) }
        }
        if text.isEmpty {
            dispatch(into: &events)
            return
        }
        if text.first == UInt8(ascii: ":") { return }
        let colon = text.firstIndex(of: UInt8(ascii: ":"))
        let field = String(decoding: colon.map { text[..<$0] } ?? text, as: UTF8.self)
        var value = colon.map { text[text.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch field {
        case "event": eventType = String(decoding: value, as: UTF8.self)
        case "data":
            guard data.count + value.count + 1 <= maxEventBytes else {
                throw EventStreamError(.eventTooLarge, detail: "over \(maxEventBytes) bytes")
            }
            if hasData { data.append(0x0a) }
            data += value
            hasData = true
        case "id":
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.count <= 9 {
                retry = Int(String(decoding: value, as: UTF8.self))
            }
        default: break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        if hasData {
            events.append(
                ServerSentEvent(
                    event: eventType.isEmpty ? "message" : eventType,
                    data: String(decoding: data, as: UTF8.self),
                    id: lastID,
                    retry: retry
                )
            )
        }
        eventType = ""
        data.removeAll(keepingCapacity: true)
        hasData = false
        retry = nil
    }
}
