// The OCCA counterpart of bench/warm_start_program.cpp, for the whole-process figures:
// a Serial-mode device, KERNELS distinct kernels built from strings and run once each
// over 1024 floats, every result checked. OCCA is not part of stubjit's build:
// bench/peers/build-occa-peer.sh compiles this file against an OCCA installed elsewhere.
//
//   occa_warm_start KERNELS
#include <cstdio>
#include <cstdlib>
#include <occa.hpp>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 1;
  constexpr int n = 1024;
  occa::device device({{"mode", "Serial"}});
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i);
  occa::memory ox = device.malloc<float>(n, x.data());
  occa::memory oy = device.malloc<float>(n);
  for (int k = 0; k < kernels; ++k) {
    const std::string name = "add" + std::to_string(k);
    const std::string source = "@kernel void " + name +
                               "(const int n, const float a, const float *x, float *y) {\n"
                               "  for (int i = 0; i < n; ++i; @tile(256, @outer, @inner)) {\n"
                               "    y[i] = a * x[i] + " +
                               std::to_string(k) + ".0f;\n  }\n}\n";
    occa::kernel add = device.buildKernelFromString(source, name);
    add(n, 2.0f, ox, oy);
    oy.copyTo(y.data());
    for (int i = 0; i < n; i += 97) {
      const float want = 2.0f * static_cast<float>(i) + static_cast<float>(k);
      if (y[static_cast<std::size_t>(i)] != want) {
        std::fprintf(stderr, "wrong result in kernel %d at %d\n", k, i);
        return 1;
      }
    }
  }
  return 0;
}
