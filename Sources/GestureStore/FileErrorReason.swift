import Foundation

/// What went wrong with a file in the system's words ("Permission denied"), where Foundation's
/// description would dump its error domain and user info.
public func fileErrorReason(_ error: any Error) -> String {
    let bridged = error as NSError
    if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? any Error,
        (underlying as NSError).domain == NSPOSIXErrorDomain
    {
        return String(cString: strerror(Int32((underlying as NSError).code)))
    }
    switch bridged.domain {
    case NSPOSIXErrorDomain: return String(cString: strerror(Int32(bridged.code)))
    case NSCocoaErrorDomain: return bridged.localizedFailureReason ?? bridged.localizedDescription
    default: return "\(error)"
    }
}
