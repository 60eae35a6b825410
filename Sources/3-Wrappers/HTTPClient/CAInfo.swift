internal import Glibc

/// Where the system's CA certificates live, for `CURLOPT_CAINFO`.
///
/// libcurl's compiled-in default is the build machine's path; setting it explicitly makes the same
/// binary work on Debian (local, CI) and on Amazon Linux 2 / 2023 (Lambda's `provided` runtimes).
enum CAInfo {
    /// Candidate bundle files, in order: Debian/Ubuntu, Amazon Linux 2 and 2023 (also RHEL/Fedora), then
    /// the extracted ca-trust bundle and the BSD-style path some images provide.
    static let candidates = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ]

    /// The first readable candidate, or nil (libcurl's default then applies).
    static func systemBundlePath(candidates: [String] = candidates) -> String? {
        candidates.first { access($0, R_OK) == 0 }
    }
}
