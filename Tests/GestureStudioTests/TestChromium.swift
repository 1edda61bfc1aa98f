import BrowserDriver
import GestureTestSupport

import struct SystemPackage.FilePath

extension Chromium {
    /// Chromium for a test, killed when the test process ends however it ends.
    convenience init(dyingWithTestsIn folder: FilePath, arguments: [String] = []) async throws {
        try await self.init(in: folder, arguments: arguments) { try $0.runDyingWithTests() }
    }
}
