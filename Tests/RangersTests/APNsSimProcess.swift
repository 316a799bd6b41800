import Foundation
import Testing

/// `rangers apns-sim` as a process, with what it printed about itself.
struct APNsSimProcess {
    let process: Process
    let output: FileHandle
    let url: String
    let managementURL: String
    let caFile: String
    let keyFile: String
    let keyID: String
    let teamID: String

    /// The connection options of `rangers push` and `rangers channels` for this simulator.
    var connection: [String] {
        ["--apns-url", url, "--management-url", managementURL, "--ca-file", caFile, "--key-file", keyFile,
         "--key-id", keyID, "--team-id", teamID]
    }

    /// Starts the simulator on free ports and reads what it prints about itself.
    static func start(keyDirectory: URL, arguments: [String] = []) throws -> APNsSimProcess {
        let process = Process()
        process.executableURL = RangersProcess.executable
        process.arguments = ["apns-sim", "--port", "0", "--management-port", "0", "--key-dir", keyDirectory.path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let reader = out.fileHandleForReading
        while !text.contains("Ctrl-C") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        func value(after label: String) throws -> String {
            let line = try #require(text.split(separator: "\n").first { $0.contains(label) }, "no '\(label)' in:\n\(text)")
            return String(try #require(line.components(separatedBy: label).last)).trimmingCharacters(in: .whitespaces)
        }
        let url = try value(after: "listening on ").split(separator: " ").first.map(String.init) ?? ""
        let ids = try value(after: "key id:").split(separator: " ")
        return APNsSimProcess(
            process: process, output: reader, url: url, managementURL: try value(after: "channel management on:"),
            caFile: try value(after: "CA file (its TLS certificate):"), keyFile: try value(after: "provider key (.p8, signs JWTs):"),
            keyID: String(ids[0]), teamID: String(ids.last ?? ""))
    }

    /// Stops it with SIGTERM and returns what it printed from then on (its summary).
    func stop() -> String {
        process.terminate()
        let rest = output.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: rest, as: UTF8.self)
    }
}
