// Runs a fuzz target over saved inputs, without libFuzzer: the seed corpus and every
// input that once found a defect (tests/fuzz/regressions/), in every ctest run and with
// any compiler. Arguments are files or folders of files; a target that aborts on an
// input fails the test, and naming no input at all is an error too.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> inputs;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::directory_iterator(path))
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
        inputs.push_back(entry.path());
    std::sort(inputs.begin(), inputs.end());
  } else if (std::filesystem::is_regular_file(path)) {
    inputs.push_back(path);
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const std::filesystem::path& input : inputs_in(argv[i])) {
      std::ifstream file(input, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), {});
      if (!file.good() && !file.eof()) {
        std::printf("cannot read %s\n", input.c_str());
        return 1;
      }
      std::printf("%s\n", input.c_str());
      std::fflush(stdout);  // the input a failure happens on is the last one printed
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::printf("no inputs found in the paths given\n");
    return 1;
  }
  std::printf("%zu inputs replayed\n", replayed);
  return 0;
}
