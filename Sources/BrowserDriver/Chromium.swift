import Foundation

import struct SystemPackage.FilePath

/// Debian's headless Chromium with a profile of its own under `folder`, driven over the DevTools
/// protocol; it is stopped when the value goes.
public final class Chromium {
    private let process = Process()
    let devTools: DevTools

    /// - Parameters:
    ///   - arguments: Chromium's own, added to those that make it headless and drivable.
    ///   - start: Starts the prepared process; tests start it so that it dies with them.
    public init(
        in folder: FilePath, arguments: [String] = [], start: (Process) throws -> Void = { try $0.run() }
    ) async throws {
        let profile = folder.appending("chromium")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        // --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start. The
        // WebSocket client says it comes from ws://127.0.0.1, an origin DevTools refuses unless told.
        process.arguments =
            [
                "--headless=new", "--remote-debugging-port=0", "--user-data-dir=\(profile)", "--no-sandbox",
                "--remote-allow-origins=ws://127.0.0.1",
                "--no-first-run", "--disable-gpu", "--disable-dev-shm-usage",
            ] + arguments + ["about:blank"]
        let log = folder.appending("chromium.log").string
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardInput = FileHandle.nullDevice
        // A profile used before keeps the port of the Chromium that used it.
        let portFile = profile.appending("DevToolsActivePort").string
        try? FileManager.default.removeItem(atPath: portFile)
        try start(process)
        let lines = try await waitFor("Chromium's DevToolsActivePort") {
            let lines = (try? String(contentsOfFile: portFile, encoding: .utf8))?.split(separator: "\n") ?? []
            return lines.count == 2 ? lines : nil
        }
        devTools = DevTools(url: "ws://127.0.0.1:\(lines[0])\(lines[1])")
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// A screen a page is shown on: width and height in CSS pixels, and whether it is a phone's.
    public struct Screen: Sendable {
        public var width: Int
        public var height: Int
        public var mobile: Bool

        /// The phone's page is made for one.
        public static let phone = Screen(width: 390, height: 844, mobile: true)
        public static let laptop = Screen(width: 1280, height: 860, mobile: false)
    }

    /// A new tab showing `url` on `screen`, once it has loaded.
    public func open(_ url: String, on screen: Screen = .phone) async throws -> BrowserPage {
        let target = try await devTools.send("Target.createTarget", ["url": "about:blank"])["targetId"] as! String
        let session =
            try await devTools.send("Target.attachToTarget", ["targetId": target, "flatten": true])["sessionId"]
            as! String
        let page = BrowserPage(browser: self, target: target, session: session)
        try await page.send("Page.enable")
        try await page.send(
            "Emulation.setDeviceMetricsOverride",
            ["width": screen.width, "height": screen.height, "deviceScaleFactor": 2, "mobile": screen.mobile])
        try await page.send("Page.navigate", ["url": url])
        try await page.waitUntil(
            "the page loaded", "document.readyState === 'complete' && location.href !== 'about:blank'")
        return page
    }
}

/// A tab of `Chromium`, which lives as long as its tabs.
public struct BrowserPage {
    public let browser: Chromium
    public let target: String
    public let session: String

    @discardableResult
    public func send(_ method: String, _ parameters: [String: Any] = [:]) async throws -> [String: Any] {
        try await browser.devTools.send(method, parameters, session: session)
    }

    /// The value of a JavaScript expression, awaited if it is a promise.
    public func evaluate(_ expression: String) async throws -> Any? {
        let result = try await send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw DevToolsError(message: "\(expression): \(exception["exception"] ?? exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Evaluates `condition` until it is true.
    public func waitUntil(_ what: String, _ condition: String) async throws {
        // A page that is navigating has no document to evaluate in: not yet.
        _ = try await waitFor(what) { (try? await evaluate(condition)) as? Bool == true ? true : nil }
    }

    public func screenshot(to path: FilePath) async throws {
        let data = try await send("Page.captureScreenshot", ["format": "png"])["data"] as! String
        try Data(base64Encoded: data)!.write(to: URL(fileURLWithPath: path.string))
    }

    public func close() async throws {
        try await browser.devTools.send("Target.closeTarget", ["targetId": target])
    }
}

/// Checks for a state until `found` returns it. A state that never comes fails the test after
/// `limit` seconds: a bound against hanging, not a timing.
public func waitFor<T>(_ what: String, limit: Double = 120, _ found: () async throws -> T?) async throws -> T {
    let deadline = Date().addingTimeInterval(limit)
    while true {
        if let value = try await found() { return value }
        guard Date() < deadline else { throw DevToolsError(message: "never saw \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
