/* tests/shim: the GoogleTest side: a fixture that fails a test on any unexpected warning or
 * error log line, and a helper that captures the lines an action is expected to log. */
#ifndef SYMH_GTEST_HPP
#define SYMH_GTEST_HPP

#include <gtest/gtest.h>

#include <csignal>
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

// Expects `statement` to die of SIGSEGV, the fault an access the mapping does not allow gets
// (PROT_NONE, an unmapped range, a write to a read-only view); any other death (SIGBUS: a mapping
// past the end of its object, an abort, an exit) fails. The child restores SIGSEGV's default
// action first: the sanitizers and UCX (loaded by MPI, even in a singleton) catch the signal and
// exit with their own report otherwise.
#define EXPECT_SEGV(statement)        \
    EXPECT_EXIT(                      \
        {                             \
            signal(SIGSEGV, SIG_DFL); \
            statement;                \
        },                            \
        ::testing::KilledBySignal(SIGSEGV), "")

#endif /* SYMH_GTEST_HPP */
