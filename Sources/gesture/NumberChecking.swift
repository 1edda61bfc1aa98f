/// A command whose numeric options `checkNumbers` checks before it does anything else. It reads no
/// file and changes nothing, so that any value can be tried on it (Tests/FuzzTests does).
protocol NumberChecking {
    func checkNumbers() throws
}
