// ExpectFatal for the DualPI2 and FQ-PIE checks: runs a body in a child
// process and tells whether it ended through NS_FATAL_ERROR (an abort, or a
// non-zero exit) with a message containing a given text on standard error.
#ifndef NETCOND_EXPECT_FATAL_H
#define NETCOND_EXPECT_FATAL_H

#include <cstdio>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace netcond_test
{

/// Runs `body` in a child; true if the child did not end normally and its
/// standard error holds `needle`. Prints one line, "ok" or "FAIL", with
/// `what` and the child's first line of standard error.
inline bool
ExpectFatal(const std::string& what, const std::function<void()>& body, const std::string& needle)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        std::printf("FAIL %s: no pipe\n", what.c_str());
        return false;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        dup2(fds[1], 2);
        body();
        _exit(0); // the body returned: no fatal error
    }
    close(fds[1]);
    std::string text;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
    {
        text.append(buf, size_t(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const bool aborted = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
    const bool ok = pid > 0 && aborted && text.find(needle) != std::string::npos;
    const std::string first = text.substr(0, text.find('\n'));
    std::printf("%s %s -> fatal error mentioning \"%s\" (got: %s)\n", ok ? "ok" : "FAIL",
                what.c_str(), needle.c_str(), first.c_str());
    return ok;
}

} // namespace netcond_test

#endif
