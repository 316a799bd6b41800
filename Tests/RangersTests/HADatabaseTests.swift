import Foundation
import Testing

/// scripts/ha-database.sh on real processes: etcd, two PostgreSQL servers managed
/// by Patroni (a primary and a synchronous standby), HAProxy routing to the
/// primary, and two `rangers serve` nodes (the built binary) playing adventures;
/// the primary's postmaster killed with SIGKILL mid-adventure. It exits 0 only
/// when the standby took over, both nodes went on without a restart, every
/// adventure ended with its uninterrupted run's event log (`rangers replay` says
/// identical) and nothing committed was lost.
///
/// Under `CI=true` it must run (a missing tool fails it: the script exits 3).
/// Elsewhere, without PostgreSQL, Patroni, etcd or HAProxy installed, it is
/// skipped and says why.
@Suite struct HADatabaseTests {
    static let isRequired = ProcessInfo.processInfo.environment["CI"] == "true"
    static let tools = ["/usr/bin/patroni", "/usr/bin/etcd", "/usr/sbin/haproxy"]
    static let hasTools: Bool = {
        let postgres = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        } ?? false
        return postgres && tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static let skipped = "PostgreSQL, Patroni, etcd or HAProxy is not installed (bash scripts/install-system-packages.sh): "
        + "the database failover test is skipped"

    @Test(.enabled(if: isRequired || hasTools, Comment(rawValue: skipped)))
    func thePrimaryKilledMidAdventureFailsOverAndNothingIsLost() async throws {
        let script = RangersProcess.repositoryRoot.appendingPathComponent("scripts/ha-database.sh").path
        let started = ContinuousClock.now
        let result = try await Subprocess.run("bash", [script, "--rangers", RangersProcess.executable.path,
                                                       "--parties", "3", "--time-limit", "14", "--kill-at-tick", "4"])
        let took = ContinuousClock.now - started
        #expect(result.status == 0, "ha-database.sh exited \(result.status) after \(took):\n\(result.stdout.suffix(12_000))")
        #expect(result.stdout.contains("ha-database: every check held"))
        // The figures, for the log of the run.
        if let figures = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("FAILOVER ") }) {
            print("ha-database.sh: \(figures) (the script took \(took))")
        }
    }
}
