// Writing .npy outputs (cli/output_file.cpp, cli/interrupt.cpp): nothing at the final path before commit, an
// existing file untouched until then, temporaries removed on failure and on a signal, outputs that are
// their own inputs refused by file identity.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "accelera/core/error.hpp"
#include "interrupt.hpp"
#include "npy.hpp"
#include "test_npy_helpers.hpp"

namespace {

using acc_test::read_bytes;
using acc_test::ScratchDir;
using accelera::DType;
using accelera::cli::MappedNpy;
namespace fs = std::filesystem;

void fill(const MappedNpy& out) {
  auto* p = out.tensor().data<double>();
  for (std::int64_t i = 0; i < out.tensor().numel(); ++i) p[i] = static_cast<double>(i) + 0.5;
}

TEST(NpyOutput, AppearsOnlyOnCommit) {
  ScratchDir dir;
  const std::string path = dir.file("c.npy");
  auto out = MappedNpy::create(path, 3, 5, DType::f64, {});
  fill(*out);
  // Before the commit: one hidden temporary beside the path, nothing at the path.
  const auto names = dir.names();
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].rfind(".c.npy.", 0), 0u) << names[0];
  EXPECT_FALSE(fs::exists(path));
  out->commit();
  EXPECT_EQ(dir.names(), std::vector<std::string>{"c.npy"});
  out.reset();
  const auto back = MappedNpy::open(path);
  EXPECT_EQ(back->tensor().shape(), accelera::Shape({3, 5}));
  EXPECT_EQ(back->tensor().data<double>()[14], 14.5);
  // A new file gets 0666 less the umask, like any other.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(NpyOutput, AnUncommittedOutputLeavesNothing) {
  ScratchDir dir;
  {
    auto out = MappedNpy::create(dir.file("c.npy"), 4, 4, DType::f32, {});
    fill(*out);
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(NpyOutput, AnExistingFileIsUntouchedUntilCommitAndKeepsItsMode) {
  ScratchDir dir;
  const std::string path = dir.file("c.npy");
  acc_test::write_bytes(path, "the previous result");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  {
    auto out = MappedNpy::create(path, 2, 2, DType::f64, {});
    fill(*out);
    EXPECT_EQ(read_bytes(path), "the previous result");
  }
  EXPECT_EQ(read_bytes(path), "the previous result");  // a failed run: the old file as it was
  EXPECT_EQ(dir.names(), std::vector<std::string>{"c.npy"});
  auto out = MappedNpy::create(path, 2, 2, DType::f64, {});
  fill(*out);
  out->commit();
  EXPECT_NE(read_bytes(path), "the previous result");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(NpyOutput, RefusesAnOutputThatIsAnInput) {
  ScratchDir dir;
  const std::string input_path = dir.file("x.npy");
  acc_test::write_bytes(input_path, acc_test::npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                                                        acc_test::f64_bytes({1, 2, 3, 4})));
  const std::string before = read_bytes(input_path);
  fs::create_symlink("x.npy", dir.path() / "link.npy");
  fs::create_hard_link(input_path, dir.path() / "hard.npy");
  fs::create_directory(dir.path() / "sub");
  fs::create_directory_symlink(dir.path(), dir.path() / "sub" / "up");
  const auto input = MappedNpy::open(input_path);
  const auto names_before = dir.names();
  for (const std::string& alias : {input_path, dir.file("./x.npy"), dir.file("link.npy"), dir.file("hard.npy"),
                                   dir.file("sub/up/x.npy"), dir.file("sub/../x.npy")}) {
    SCOPED_TRACE(alias);
    try {
      MappedNpy::create(alias, 2, 2, DType::f64, {input.get()});
      ADD_FAILURE() << "accepted";
    } catch (const accelera::ValueError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("same file as the input " + input_path), std::string::npos) << message;
    }
    EXPECT_EQ(dir.names(), names_before);
    EXPECT_EQ(read_bytes(input_path), before);
  }
}

TEST(NpyOutput, RefusesPathsThatCannotBeAFile) {
  ScratchDir dir;
  fs::create_directory(dir.path() / "d.npy");
  for (const std::string& path : {dir.file("d.npy"), dir.file("missing/c.npy"), dir.file("c.npy/")}) {
    SCOPED_TRACE(path);
    EXPECT_THROW(MappedNpy::create(path, 2, 2, DType::f64, {}), accelera::ValueError);
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"d.npy"});
}

TEST(NpyOutput, ASignalRemovesTheTemporaryAtOnceAndCommitRefuses) {
  ScratchDir dir;
  const std::string path = dir.file("c.npy");
  acc_test::write_bytes(path, "the previous result");
  {
    const accelera::cli::InterruptGuard guard(/*grace_seconds=*/60);
    auto out = MappedNpy::create(path, 8, 8, DType::f64, {});
    fill(*out);
    ASSERT_EQ(dir.names().size(), 2u);
    ASSERT_EQ(::raise(SIGTERM), 0);  // the handler runs in this thread before raise returns
    EXPECT_EQ(accelera::cli::pending_interrupt(), SIGTERM);
    EXPECT_EQ(dir.names(), std::vector<std::string>{"c.npy"});  // the temporary is gone already
    try {
      out->commit();
      ADD_FAILURE() << "committed after a signal";
    } catch (const accelera::CancelledError& error) {
      EXPECT_NE(std::string(error.what()).find("SIGTERM"), std::string::npos) << error.what();
    }
    // No new output can start either.
    EXPECT_THROW(MappedNpy::create(dir.file("d.npy"), 2, 2, DType::f64, {}), accelera::CancelledError);
  }
  EXPECT_EQ(read_bytes(path), "the previous result");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"c.npy"});
  EXPECT_EQ(accelera::cli::pending_interrupt(), 0);  // the record belongs to the guard's run
}

TEST(NpyOutput, TheGuardRestoresThePreviousHandlers) {
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGINT, nullptr, &before), 0);
  {
    const accelera::cli::InterruptGuard guard;
    struct sigaction during {};
    ASSERT_EQ(::sigaction(SIGINT, nullptr, &during), 0);
    EXPECT_NE(during.sa_handler, before.sa_handler);
  }
  struct sigaction after {};
  ASSERT_EQ(::sigaction(SIGINT, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace

// A run that cannot poll (an in-core product has no tiles) is ended by the grace timer; a second signal
// ends it at once. Either way the temporary is gone and the exit status is 128 + the first signal.
TEST(NpyOutputDeathTest, ARunThatDoesNotStopIsEndedAfterTheGracePeriod) {
  ScratchDir dir;
  EXPECT_EXIT(
      {
        const accelera::cli::InterruptGuard guard(/*grace_seconds=*/1);
        auto out = MappedNpy::create(dir.file("c.npy"), 4, 4, DType::f64, {});
        ::raise(SIGINT);
        ::sleep(60);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(130), "SIGINT: exiting without finishing the run; no output was written");
  EXPECT_TRUE(dir.names().empty());
}

TEST(NpyOutputDeathTest, ASecondSignalEndsTheRunAtOnce) {
  ScratchDir dir;
  EXPECT_EXIT(
      {
        const accelera::cli::InterruptGuard guard(/*grace_seconds=*/60);
        auto out = MappedNpy::create(dir.file("c.npy"), 4, 4, DType::f64, {});
        ::raise(SIGTERM);
        ::raise(SIGINT);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "SIGTERM: exiting without finishing");
  EXPECT_TRUE(dir.names().empty());
}
