import BrowserDriver
import Foundation
import Testing

/// What the studio's view tests ask of a page: requests sent from it, its elements' text, and the
/// one-line errors its status lines say.
extension BrowserPage {
    /// Sends a request from the page: POST with `body`, or GET without; with the page's token, or none.
    func request(_ path: String, _ body: String?, token: Bool = true) async throws -> (status: Int, error: String) {
        let options = try body.map { "{ method: 'POST', body: \(try jsonLiteral($0)) }" } ?? "{}"
        let answer = try #require(
            try await evaluate(
                """
                fetch(\(token ? "address('\(path)')" : "'\(path)'"), \(options)).then(async (response) => {
                  const text = await response.text();
                  let said = text;
                  try { said = JSON.parse(text).error || text; } catch {}
                  return [response.status, said];
                })
                """) as? [Any])
        return (answer[0] as! Int, answer[1] as! String)
    }

    func text(_ selector: String) async throws -> String {
        try #require(try await evaluate("document.querySelector('\(selector)').textContent") as? String)
    }

    /// Waits for the status line `status` to say `error` as one.
    func waitForError(_ error: some StringProtocol, in status: String, prefix: Bool = false) async throws {
        let literal = try jsonLiteral(String(error))
        let line = "document.getElementById('\(status)')"
        let shown = try await evaluate("\(line).textContent") as? String
        try await waitUntil(
            "the page saying \(error), not \(shown ?? "")",
            "\(line).className === 'error' && \(line).textContent"
                + (prefix ? ".startsWith(\(literal))" : " === \(literal)"))
    }
}

/// `text` as a JSON, and so JavaScript, string literal.
func jsonLiteral(_ text: String) throws -> String {
    String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
}
