// lies_inside, which decides whether a program is one of the build tree's own (so that
// it may use the tree's compile worker): against paths made here, real and through
// links, as /proc/self/exe (always resolved) and CMake's build folder (as given) differ.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.hpp"
#include "support/library_files.hpp"

namespace stubjit::detail {
namespace {

namespace fs = std::filesystem;

TEST(LiesInside, APathUnderTheFolderAsWritten) {
  const test::TempDir dir;
  const fs::path tree = fs::path(dir.path()) / "tree";
  fs::create_directories(tree / "bench");
  std::ofstream(tree / "bench" / "program") << "";
  EXPECT_TRUE(lies_inside((tree / "bench" / "program").string(), tree.string()));
  EXPECT_TRUE(lies_inside((tree / "bench" / ".." / "bench" / "program").string(), tree.string()));
  // A sibling whose name starts like the folder's is not inside it.
  fs::create_directories(fs::path(dir.path()) / "tree-other");
  EXPECT_FALSE(
      lies_inside((fs::path(dir.path()) / "tree-other" / "program").string(), tree.string()));
  EXPECT_FALSE(lies_inside(dir.path(), tree.string()));
}

// The build folder named through a link (CMake was given the link), the program by its
// resolved path (/proc/self/exe): inside, as the program is; and the other way round.
TEST(LiesInside, AFolderReachedThroughALinkHoldsTheResolvedPath) {
  const test::TempDir dir;
  const fs::path real = fs::path(dir.path()) / "real-tree";
  fs::create_directories(real / "bench");
  std::ofstream(real / "bench" / "program") << "";
  const fs::path link = fs::path(dir.path()) / "linked-tree";
  fs::create_directory_symlink(real, link);
  EXPECT_TRUE(lies_inside((real / "bench" / "program").string(), link.string()));
  EXPECT_TRUE(lies_inside((link / "bench" / "program").string(), real.string()));
  // A link inside the tree that leads out of it: the program it names lies elsewhere.
  const fs::path outside = fs::path(dir.path()) / "elsewhere";
  fs::create_directories(outside);
  std::ofstream(outside / "program") << "";
  fs::create_directory_symlink(outside, real / "escape");
  EXPECT_FALSE(lies_inside((real / "escape" / "program").string(), real.string()));
}

}  // namespace
}  // namespace stubjit::detail
