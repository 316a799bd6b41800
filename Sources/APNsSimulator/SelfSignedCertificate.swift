import Crypto
import Foundation
import X509

/// The simulator's TLS identity: a self-signed P-256 certificate for `localhost`,
/// 127.0.0.1 and ::1 that clients can use as their CA file. OpenSSL (curl) only
/// trusts a CA file entry that is a CA, hence basicConstraints CA:TRUE and
/// keyCertSign on what is otherwise a server certificate.
struct SelfSignedCertificate {
    let certificatePEM: String
    let privateKeyPEM: String

    static let validBefore: TimeInterval = 60 * 60
    static let validFor: TimeInterval = 30 * 24 * 60 * 60

    init(host: String, now: Date = Date()) throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            CommonName("localhost")
            OrganizationName("Emoji Rangers APNs simulator")
        }
        let loopbackAddresses: [[UInt8]] = [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]
        var addresses = loopbackAddresses
        var dnsNames = ["localhost"]
        if let address = Self.ipAddressBytes(host) {
            if !addresses.contains(address) { addresses.append(address) }
        } else if !host.isEmpty, !dnsNames.contains(host) {
            dnsNames.append(host)
        }
        let alternativeNames: [GeneralName] = dnsNames.map { .dnsName($0) }
            + addresses.map { .ipAddress(.init(contentBytes: $0[...])) }
        // Key identifier as RFC 5280 §4.2.1.2 method 1: SHA-1 of the public key bits.
        let keyIdentifier = Array(Insecure.SHA1.hash(data: key.publicKey.x963Representation))
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternativeNames)
            SubjectKeyIdentifier(keyIdentifier: keyIdentifier[...])
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-Self.validBefore), notValidAfter: now.addingTimeInterval(Self.validFor),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
        privateKeyPEM = key.pemRepresentation
    }

    /// Network-order bytes of an IPv4 or IPv6 literal, or nil for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
