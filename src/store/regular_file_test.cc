// A file's stamp (store/regular_file.h) is what the notes editor compares to see that notes.toml
// was not replaced under it: every field is the file's own, so a file swapped in from another
// file system (the same inode number there), grown, or touched stamps differently.
#include "store/regular_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include <sys/stat.h>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

TEST(FileStampOf, EachFieldIsTheFilesOwnAndAbsentIsNotAFile) {
  testing::TempDir t;
  const std::string path = t.path() + "/notes.toml";
  std::ofstream(path) << "goal = \"x\"\n";
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  FileStamp s = StampOf(path);
  EXPECT_TRUE(s.existed);
  EXPECT_EQ(s.device, static_cast<uint64_t>(st.st_dev));
  EXPECT_EQ(s.inode, static_cast<uint64_t>(st.st_ino));
  EXPECT_EQ(s.size, 11u);
  EXPECT_EQ(s.mtime_ns, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
  FileStamp none = StampOf(t.path() + "/absent");
  EXPECT_FALSE(none.existed);
  EXPECT_EQ(none, FileStamp{});
}

}  // namespace
}  // namespace dossier
