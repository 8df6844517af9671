/* tests/shim: the GoogleTest side: a fixture that fails a test on any unexpected warning or
 * error log line, and a helper that captures the lines an action is expected to log. */
#ifndef SYMH_GTEST_HPP
#define SYMH_GTEST_HPP

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <setjmp.h>
#include <string>

#include "shim_core.h"

class SymhTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        symh_shim_log_install();
        /* A fresh per-call-site rate limit (core_log.c): what earlier tests logged does not
         * silence this one's lines (their pending summaries are not this test's). */
        symh_shim_log_flush();
        symh_shim_log_reset_unexpected();
    }
    void TearDown() override
    {
        EXPECT_STREQ("", symh_shim_log_unexpected()) << "unexpected warning or error logged";
    }
};

/* Runs `action` and returns what symheap logged meanwhile. */
template <typename F> std::string symh_captured_log(F action)
{
    symh_shim_log_begin();
    action();
    return symh_shim_log_end();
}

/* Runs `action` expecting it to log, and returns its value. */
template <typename F> auto symh_captured_log_value(F action)
{
    symh_shim_log_begin();
    auto value = action();
    symh_shim_log_end();
    return value;
}

// Whether `access` faults with SIGSEGV, the fault an access the mapping does not allow gets
// (PROT_NONE, an unmapped range, a write to a read-only view): run in this process under a
// SIGSEGV handler that jumps back out, the caller's handler restored after. Not in a child of
// fork(): a child has none of the mappings symheap makes (docs/heap.md "A child of fork"), so
// every access there would fault whatever its protection. Any other fault (SIGBUS: a mapping past
// the end of its object) ends the test binary. The handler replaces the sanitizers' and UCX's,
// which would otherwise report the fault and exit.
namespace symh_gtest_detail
{
inline sigjmp_buf &fault_jump()
{
    static sigjmp_buf jump;
    return jump;
}
inline void fault_handler(int)
{
    siglongjmp(fault_jump(), 1);
}
} // namespace symh_gtest_detail

template <typename F> bool symh_faults(F access)
{
    struct sigaction on_fault, saved;
    volatile bool faulted = false;

    memset(&on_fault, 0, sizeof(on_fault));
    on_fault.sa_handler = symh_gtest_detail::fault_handler;
    sigemptyset(&on_fault.sa_mask);
    sigaction(SIGSEGV, &on_fault, &saved);
    if (sigsetjmp(symh_gtest_detail::fault_jump(), 1) == 0)
        access();
    else
        faulted = true;
    sigaction(SIGSEGV, &saved, nullptr);
    return faulted;
}

// Expects `statement` to fault with SIGSEGV (symh_faults).
#define EXPECT_SEGV(statement) \
    EXPECT_TRUE(symh_faults([&] { statement; })) << "no SIGSEGV from " #statement ": "

#endif /* SYMH_GTEST_HPP */
