internal import Glibc

/// Blocks the calling thread (a test server's connection thread, never a Swift task) for `milliseconds`.
public func usleepMilliseconds(_ milliseconds: Int) {
    usleep(useconds_t(milliseconds * 1000))
}
