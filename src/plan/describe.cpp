#include <sstream>

#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"

namespace stubjit {

const char* name_of(Mode mode) noexcept {
  switch (mode) {
    case Mode::direct:
      return "direct";
    case Mode::spread:
      return "spread";
    case Mode::multi:
      return "multi";
  }
  return "?";
}

Mode parse_mode(const std::string& text) {
  if (text == "direct") return Mode::direct;
  if (text == "spread") return Mode::spread;
  if (text == "multi") return Mode::multi;
  throw Error("unknown mode '" + text + "' (expected direct, spread or multi)");
}

std::string Plan::describe() const {
  std::ostringstream out;
  out << name_of(mode) << " r" << rank << " block " << block[0] << 'x' << block[1] << 'x'
      << block[2] << ", " << dispatches.size()
      << (dispatches.size() == 1 ? " dispatch" : " dispatches");
  constexpr std::size_t shown = 8;
  for (std::size_t i = 0; i < dispatches.size() && i < shown; ++i) {
    const Dispatch& d = dispatches[i];
    out << (i == 0 ? ": " : " ") << "[grid " << d.grid[0] << 'x' << d.grid[1] << 'x' << d.grid[2];
    if (spread_indexing())
      out << " linear " << d.linear_begin << ".." << d.linear_end;
    else
      out << " origin " << d.origin[0] << ',' << d.origin[1] << ',' << d.origin[2];
    out << ']';
  }
  if (dispatches.size() > shown) out << " ...";
  return out.str();
}

}  // namespace stubjit
