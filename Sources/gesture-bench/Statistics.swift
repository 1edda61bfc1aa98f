import Foundation
import GestureCore

/// The middle value, or the mean of the two middle values.
func median(_ values: [Double]) -> Double {
    values.median ?? .nan
}

/// The value below which `fraction` of the values lie (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    values.percentile(fraction) ?? .nan
}

/// The most memory this process has held, in MiB.
func peakResidentMiB() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// The memory this process holds now, in MiB (VmRSS in /proc/self/status).
func residentMiB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    let kibibytes = line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap {
        Double($0)
    }
    return (kibibytes ?? .nan) / 1024
}

/// CPU time this process has used, in seconds: unlike wall time, it leaves out the time other
/// processes held the core.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The processor's model, as /proc/cpuinfo names it.
func cpuModel() -> String {
    let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    return info.firstMatch(of: /model name\s*:\s*([^\n]+)/).map { String($0.1) } ?? "unknown"
}

/// The processor's features, as /proc/cpuinfo's `flags` line names them (x86-64).
func cpuFlags() -> Set<String> {
    let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    return Set(info.firstMatch(of: /flags\s*:\s*([^\n]+)/)?.1.split(separator: " ").map(String.init) ?? [])
}

/// Whether this CPU has AVX-512 and AVX2, as `avx512f yes, avx2 yes`.
func vectorExtensions() -> String {
    ["avx512f", "avx2"].map { "\($0) \(cpuFlags().contains($0) ? "yes" : "no")" }.joined(separator: ", ")
}
