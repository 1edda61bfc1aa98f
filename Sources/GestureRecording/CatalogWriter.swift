import Dispatch
import GestureStore
import Synchronization

/// The recorder's only way to the catalog. Writes run in order on a queue of their own, so a slow
/// or locked catalog never holds up sampling or the rows; a write that fails stays queued, is tried
/// again with the next one and once more at the end, and what never reached the catalog is handed
/// back so that the recorder can say so exactly.
final class CatalogWriter: Sendable {
    private enum Write {
        case begin(SessionRecord)
        case finish(SessionRecord)

        var record: SessionRecord {
            switch self {
            case .begin(let record), .finish(let record): record
            }
        }
    }

    private let catalog: Catalog
    private let queue = DispatchQueue(label: "gesture.catalog-writer")
    private let pending = Mutex<[Write]>([])
    private let lastError = Mutex<StoreError?>(nil)
    /// Whether a pass over the pending writes is queued: one is enough, however many writes come
    /// while the catalog keeps it waiting.
    private let scheduled = Mutex(false)

    init(catalog: Catalog) { self.catalog = catalog }

    /// Registers a take as being recorded.
    func begin(_ record: SessionRecord) { enqueue(.begin(record)) }

    /// Saves a take as it ended.
    func finish(_ record: SessionRecord) { enqueue(.finish(record)) }

    /// Waits for every write; returns the sessions whose last state the catalog does not hold, and why.
    func drain() -> (unsaved: [SessionRecord], error: StoreError?) {
        queue.sync { writePending() }
        let unsaved = pending.withLock { writes in
            var latest: [SessionRecord] = []
            for write in writes {
                latest.removeAll { $0.id == write.record.id }
                latest.append(write.record)
            }
            return latest
        }
        return (unsaved, unsaved.isEmpty ? nil : lastError.withLock { $0 })
    }

    private func enqueue(_ write: Write) {
        pending.withLock { $0.append(write) }
        let schedule = scheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard schedule else { return }
        queue.async {
            self.scheduled.withLock { $0 = false }
            self.writePending()
        }
    }

    private func writePending() {
        while let write = pending.withLock({ $0.first }) {
            do {
                switch write {
                case .begin(let record): try catalog.insert(record)
                case .finish(let record): try catalog.finish(record)
                }
            } catch {
                lastError.withLock { $0 = error }
                return
            }
            pending.withLock { _ = $0.removeFirst() }
        }
    }
}
