import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that misbehaves on purpose, for failures no real
/// server offers on demand.
final class LocalTCPServer: @unchecked Sendable {
    enum Behaviour {
        /// Bound but not listening: connections are refused.
        case refuse
        /// Listening but never accepting: the kernel completes the TCP handshake and
        /// then nothing answers, so TLS never starts.
        case silent
        /// Accepts, answers every connection with these bytes and closes it.
        case reply([UInt8])
    }

    let port: Int
    private let socket: Int32
    private var acceptThread: Thread?

    init(_ behaviour: Behaviour) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        guard socket >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))

        switch behaviour {
        case .refuse:
            break
        case .silent:
            listen(socket, 128)
        case .reply(let bytes):
            listen(socket, 128)
            let listener = socket
            let thread = Thread {
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }  // the listener was shut down
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = read(connection, &buffer, buffer.count)
                    _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                    close(connection)
                }
            }
            thread.start()
            acceptThread = thread
        }
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    deinit {
        // shutdown wakes a thread blocked in accept; close alone would not.
        Glibc.shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
