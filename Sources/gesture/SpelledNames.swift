import GestureCommandLine
import GestureCore
import GestureStore

extension KnownNames {
    /// `name` as the recordings already spell it, if they hold a name that differs from it only in
    /// case, with a warning: so `Ann` does not silently become a second user beside `ann`. A name
    /// close to one held is recorded as typed, with a warning naming the one held.
    func spelled(_ name: String, what: String) -> String {
        let spelling = spelling(of: name)
        if let warning = spelling.warning(about: name, what: what) { Terminal.warn(warning) }
        return spelling.recorded(name)
    }
}
