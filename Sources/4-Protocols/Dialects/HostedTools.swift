internal import AttestCore

/// Refuses tools the provider runs itself (web search, code execution, file search, remote MCP, …):
/// they bill per use on top of tokens and feed their results back as input the body does not bound.
/// Tools the client defines and runs (functions) pass.
enum HostedTools {
    /// OpenAI (chat and Responses): each `tools` entry's `type` is `function` or `custom`.
    static func checkOpenAI(_ request: [String: JSONValue]) throws(DialectRefusal) {
        try RequestFields.refuse(request, ["web_search_options"], reason: .hostedTool)
        for tool in try entries(request, "tools") {
            let type = tool["type"]?.stringValue
            guard type == "function" || type == "custom" else {
                throw DialectRefusal(.hostedTool, detail: "tools type \((type ?? "?").prefix(40))")
            }
        }
    }

    /// Anthropic: each `tools` entry is a custom tool (no `type`, or `custom`); versioned types
    /// (`web_search_20250305`, `code_execution_…`, `computer_…`) are Anthropic-defined; `mcp_servers` too.
    static func checkAnthropic(_ request: [String: JSONValue]) throws(DialectRefusal) {
        try RequestFields.refuse(request, ["mcp_servers"], reason: .hostedTool)
        for tool in try entries(request, "tools") {
            let type = tool["type"]
            guard type == nil || type == .null || type == .string("custom") else {
                throw DialectRefusal(.hostedTool, detail: "tools type \((type?.stringValue ?? "?").prefix(40))")
            }
        }
    }

    /// Gemini: each `tools` entry declares functions only (`googleSearch`, `codeExecution`, `urlContext`, …
    /// are refused).
    static func checkGemini(_ request: [String: JSONValue]) throws(DialectRefusal) {
        for tool in try entries(request, "tools") {
            for key in tool.keys where key != "functionDeclarations" && key != "function_declarations" {
                throw DialectRefusal(.hostedTool, detail: "tools \(key.prefix(40))")
            }
        }
    }

    private static func entries(
        _ request: [String: JSONValue],
        _ field: String
    ) throws(DialectRefusal)
        -> [[String: JSONValue]]
    {
        switch request[field] {
        case nil, .null?: return []
        case .array(let values)?:
            var objects: [[String: JSONValue]] = []
            for value in values {
                guard case .object(let object) = value else {
                    throw DialectRefusal(.fieldInvalid, detail: "\(field) entry is not an object")
                }
                objects.append(object)
            }
            return objects
        default: throw DialectRefusal(.fieldInvalid, detail: "\(field) is not an array")
        }
    }
}
