import Foundation

/// Reads a Server-Sent Events stream for a while as a browser would, from another
/// process (Python's http.client, so what arrives is timed as it arrives, not as a
/// test's own HTTP stack buffers it): each message with the second it arrived at.
enum EventStreamReader {
    struct Message {
        var arrivedAt: Double
        var id: String?
        var event: String
        var data: [String: Any]
    }

    struct Reading {
        var status: Int
        var contentType: String
        var messages: [Message]

        var pushes: [Message] { messages.filter { $0.event == "push" } }
    }

    static let script = #"""
        import sys, time, urllib.request
        url, seconds, last = sys.argv[1], float(sys.argv[2]), sys.argv[3]
        request = urllib.request.Request(url, headers={"Last-Event-ID": last} if last else {})
        start = time.time()
        try:
            with urllib.request.urlopen(request, timeout=seconds + 10) as answer:
                print(f"status {answer.status} {answer.headers.get('Content-Type')}", flush=True)
                while time.time() - start < seconds:
                    line = answer.readline()
                    if not line:
                        break
                    print(f"{time.time() - start:.3f}\t{line.decode().rstrip()}", flush=True)
        except urllib.error.HTTPError as error:
            print(f"status {error.code} {error.headers.get('Content-Type')}", flush=True)
        """#

    /// Reads `url` for `seconds`, sending `lastEventID` if given.
    static func read(_ url: String, for seconds: Double, lastEventID: String? = nil) async throws -> Reading {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, url, String(seconds), lastEventID ?? ""]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let head = lines.first?.split(separator: " ") ?? []
        var reading = Reading(status: head.count > 1 ? Int(head[1]) ?? 0 : 0,
                              contentType: head.dropFirst(2).joined(separator: " "), messages: [])
        var id: String?, event = "message", data: [String] = [], arrivedAt = 0.0
        for line in lines.dropFirst() {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let time = Double(parts[0]) else { continue }
            let field = parts[1]
            if field.isEmpty {
                if !data.isEmpty {
                    let object = (try? JSONSerialization.jsonObject(with: Data(data.joined(separator: "\n").utf8))) as? [String: Any]
                    reading.messages.append(Message(arrivedAt: arrivedAt, id: id, event: event, data: object ?? [:]))
                }
                id = nil
                event = "message"
                data = []
            } else {
                arrivedAt = time
                if field.hasPrefix("id: ") { id = String(field.dropFirst(4)) }
                if field.hasPrefix("event: ") { event = String(field.dropFirst(7)) }
                if field.hasPrefix("data: ") { data.append(String(field.dropFirst(6))) }
            }
        }
        return reading
    }
}
