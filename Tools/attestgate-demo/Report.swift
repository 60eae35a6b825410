/// Prints the session: one line per step as it happens, then a summary table.
final class Report {
    struct Line {
        let who: String
        let what: String
        let expected: String
        let got: String
        let ok: Bool
    }

    private(set) var lines: [Line] = []

    var failures: Int { lines.filter { !$0.ok }.count }

    func header(_ title: String) {
        print("\n== \(title)")
    }

    /// Records and prints one step: who did what, what the product should answer, what it answered.
    func step(_ who: String, _ what: String, expected: String, got: String, ok: Bool) {
        let line = Line(who: who, what: what, expected: expected, got: got, ok: ok)
        lines.append(line)
        print(format(line))
    }

    func note(_ text: String) { print("       \(text)") }

    func format(_ line: Line) -> String {
        "  \(line.ok ? "ok  " : "FAIL") \(pad(line.who, 19)) \(pad(line.what, 50)) expected \(pad(line.expected, 44)) got \(line.got)"
    }

    func summary() {
        print("\n== Summary: \(lines.count - failures) of \(lines.count) steps as expected")
        print("  \(pad("", 4)) \(pad("who", 19)) \(pad("what", 50)) \(pad("expected", 53)) got")
        for line in lines { print(format(line)) }
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
