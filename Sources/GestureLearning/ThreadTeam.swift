import CLearningKernels

/// Threads that share a training pass: each large matrix product's columns and each LSTM step's
/// sequences are split among them, and every value is computed as one thread would compute it, so
/// results do not depend on how many threads there are.
final class ThreadTeam {
    /// Products with fewer multiply-adds stay on one thread: handing a part over costs about a
    /// microsecond.
    static let smallestShared = 1 << 18

    private let team: OpaquePointer
    /// The caller's thread included.
    let threads: Int

    init(threads: Int) {
        guard let team = gl_team_create(Int32(max(threads, 1))) else { fatalError("out of memory for a thread team") }
        self.team = team
        self.threads = Int(gl_team_threads(team))
    }

    deinit { gl_team_destroy(team) }

    /// Runs `part(index, count)` for each index in `0..<count` (`count` is `threads`), each on
    /// whichever thread of the team is free first, this one among them; returns once all have
    /// returned.
    func run(_ part: (_ index: Int, _ count: Int) -> Void) {
        guard threads > 1 else { return part(0, 1) }
        withoutActuallyEscaping(part) { part in
            var body = part
            withUnsafeMutablePointer(to: &body) { body in
                gl_team_run(
                    team,
                    { context, index, count in
                        context!.assumingMemoryBound(to: ((Int, Int) -> Void).self).pointee(Int(index), Int(count))
                    }, body)
            }
        }
    }

    /// Runs `part` on each thread's share of `0..<total`, in multiples of `step` but for the last.
    func share(_ total: Int, step: Int = 1, _ part: (Range<Int>) -> Void) {
        run { index, count in
            let steps = (total + step - 1) / step
            let range = min(steps * index / count * step, total)..<min(steps * (index + 1) / count * step, total)
            if !range.isEmpty { part(range) }
        }
    }
}

extension ThreadTeam {
    /// `part` over `0..<total`: shared among `team`'s threads as `share` does when there is a team
    /// and `work` (multiply-adds or the like) is worth it, else in one piece on this thread.
    static func split(
        _ team: ThreadTeam?, work: Int, _ total: Int, step: Int = 1, _ part: (Range<Int>) -> Void
    ) {
        if let team, team.threads > 1, work >= smallestShared {
            team.share(total, step: step, part)
        } else {
            part(0..<total)
        }
    }
}
