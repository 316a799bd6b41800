/// The transport's own thread as a task executor. A task that prefers it
/// (`Task(executorPreference: transport.executor)`, `group.addTask(executorPreference:)`,
/// `withTaskExecutorPreference`) runs its sends where libcurl runs: preparing a
/// request, handing it to libcurl and reading the answer happen on one thread,
/// as in a plain C loop, instead of a hand-off between a Swift worker thread and
/// the driver for each push (two thread wake-ups and a contended lock).
///
/// Only for work that is mostly sending: everything such a task does takes turns
/// with libcurl on that one thread. Jobs that arrive after the transport shut
/// down run on the global executor.
public final class CurlTransportExecutor: TaskExecutor {
    private let driver: CurlMultiDriver

    init(driver: CurlMultiDriver) {
        self.driver = driver
        driver.runJobs(as: self)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        driver.enqueue(UnownedJob(job))
    }
}
