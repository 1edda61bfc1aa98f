import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#endif

/// The self-signed certificate the studio serves HTTPS with on the LAN (phones give motion only to
/// secure pages): an ECDSA P-256 key, the machine's addresses as subject alternative names, a year
/// of validity. Made at first start and kept in a folder (`key.pem`, readable by the owner only,
/// and `certificate.pem`), so the phone is asked to trust it once; made again when an address it
/// does not name appears, or it expires.
public struct StudioCertificate: Sendable {
    public let certificatePEM: String
    public let keyPEM: String

    /// The certificate in `folder` if it names every one of `addresses` and is valid a while yet;
    /// else a new one, written there.
    public static func load(from folder: String, naming addresses: [String]) throws(StudioError) -> StudioCertificate {
        let certificateFile = folder + "/certificate.pem"
        let keyFile = folder + "/key.pem"
        if let certificatePEM = try? String(contentsOfFile: certificateFile, encoding: .utf8),
            let keyPEM = try? String(contentsOfFile: keyFile, encoding: .utf8),
            let certificate = try? Certificate(pemEncoded: certificatePEM),
            Set(addresses).isSubset(of: names(in: certificate)),
            certificate.notValidAfter > Date().addingTimeInterval(86400)
        {
            return StudioCertificate(certificatePEM: certificatePEM, keyPEM: keyPEM)
        }
        do {
            let made = try make(naming: addresses)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            guard
                FileManager.default.createFile(
                    atPath: keyFile, contents: Data(made.keyPEM.utf8), attributes: [.posixPermissions: 0o600])
            else { throw StudioError("cannot write \(keyFile)") }
            try made.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
            return made
        } catch {
            throw StudioError("cannot make the HTTPS certificate in \(folder): \(error)")
        }
    }

    private static func make(naming addresses: [String]) throws -> StudioCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("GestureLab Studio") }
        let now = Date()
        let alternativeNames = addresses.compactMap { address in
            ipBytes(address).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames + [.dnsName("localhost")])
            }, issuerPrivateKey: .init(key))
        return StudioCertificate(
            certificatePEM: try certificate.serializeAsPEM().pemString, keyPEM: key.pemRepresentation)
    }

    /// The addresses a certificate names, as text.
    private static func names(in certificate: Certificate) -> Set<String> {
        let names = (try? certificate.extensions.subjectAlternativeNames) ?? SubjectAlternativeNames([])
        return Set(
            names.compactMap { name in
                guard case .ipAddress(let bytes) = name else { return nil }
                return ipText(Array(bytes.bytes))
            })
    }

    private static func ipBytes(_ address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func ipText(_ bytes: [UInt8]) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16, inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil
        else { return nil }
        return string(text)
    }
}

/// The machine's IPv4 addresses on its networks, loopback last: where a phone on the LAN reaches it.
public func machineAddresses() -> [String] {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return ["127.0.0.1"] }
    defer { freeifaddrs(list) }
    var addresses: [String] = []
    var interface = list
    while let current = interface?.pointee {
        defer { interface = current.ifa_next }
        guard let address = current.ifa_addr, address.pointee.sa_family == UInt16(AF_INET),
            current.ifa_flags & UInt32(IFF_UP) != 0, current.ifa_flags & UInt32(IFF_LOOPBACK) == 0
        else { continue }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            var bytes = ipv4.pointee.sin_addr
            _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
        }
        addresses.append(string(text))
    }
    return addresses + ["127.0.0.1"]
}

/// The text of a C string in a buffer.
private func string(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
