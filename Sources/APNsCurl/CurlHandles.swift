import CCurl
import CCurlShim

/// Owns one libcurl easy handle and frees it. Not thread-safe: one thread at a
/// time, which `CurlMultiDriver` guarantees by handing transfers over under its lock.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer

    init() throws(CurlTransportSetupError) {
        guard let raw = curl_easy_init() else { throw .libcurlInitializationFailed("curl_easy_init returned NULL") }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }

    func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        rangers_curl_easy_setopt_long(raw, option, value)
    }

    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        rangers_curl_easy_setopt_string(raw, option, value)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) -> CURLcode {
        rangers_curl_easy_setopt_pointer(raw, option, pointer)
    }

    func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) -> CURLcode {
        rangers_curl_easy_setopt_slist(raw, option, list)
    }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        return rangers_curl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : 0
    }
}

/// Owns the one libcurl multi handle of a transport and frees it.
final class CurlMultiHandle {
    private(set) var raw: UnsafeMutableRawPointer?

    init() throws(CurlTransportSetupError) {
        guard let raw = curl_multi_init() else { throw .libcurlInitializationFailed("curl_multi_init returned NULL") }
        self.raw = raw
    }

    deinit { close() }

    func set(_ option: CURLMoption, _ value: Int) throws(CurlTransportSetupError) {
        guard let raw else { return }
        let code = rangers_curl_multi_setopt_long(raw, option, value)
        guard code == CURLM_OK else {
            throw .libcurlInitializationFailed("curl_multi_setopt(\(option.rawValue)): \(String(cString: curl_multi_strerror(code)))")
        }
    }

    /// Closes every connection. Only once no easy handle is attached any more.
    func close() {
        guard let raw else { return }
        curl_multi_cleanup(raw)
        self.raw = nil
    }
}

/// Throws for a failed option on a handle being set up, naming the option.
func requireOK(_ code: CURLcode, _ option: CURLoption) throws(CurlTransportSetupError) {
    guard code == CURLE_OK else {
        throw .libcurlInitializationFailed("curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
    }
}
