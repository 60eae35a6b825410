/// The once-a-day warning mark of a daily limit: 80 % of it, rounded up and at least 1, so the warning never
/// fires before 80 % is really reached. One formula for the call and money ceilings (docs/gate.md, "The money
/// ceiling") and Google's decode quota (docs/playintegrity.md).
public enum WarningThreshold {
    public static func of(_ limit: Int64) -> Int64 { max(1, (limit * 4 + 4) / 5) }

    public static func of(_ limit: Int) -> Int { Int(of(Int64(limit))) }
}
