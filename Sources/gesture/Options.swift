import ArgumentParser
import GestureArchive
import GestureCommandLine
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

struct FolderOptions: ParsableArguments {
    @Option(name: .customLong("recordings"), help: "The recordings folder.")
    var path = "recordings"

    var folder: RecordingsFolder { RecordingsFolder(FilePath(path)) }

    func archive() throws -> Archive {
        do {
            return try Archive(folder: folder, waiting: .saying(Terminal.note))
        } catch {
            throw Failure.usage("\(error)")
        }
    }
}
