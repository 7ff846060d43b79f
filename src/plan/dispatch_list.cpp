#include <stdexcept>
#include <string>

#include "stubjit/plan.hpp"

namespace stubjit {

const Dispatch& DispatchList::at(std::size_t i) const {
  if (i >= size_) {
    throw std::out_of_range("dispatch " + std::to_string(i) + " of a plan of " +
                            std::to_string(size_));
  }
  return data()[i];
}

void DispatchList::push_back(const Dispatch& dispatch) {
  if (size_ < inline_capacity) {
    new (inline_ + size_ * sizeof(Dispatch)) Dispatch(dispatch);
    ++size_;
    return;
  }
  // Past the inline storage, every dispatch lives on the heap, in order.
  if (size_ == inline_capacity) heap_.assign(inline_data(), inline_data() + inline_capacity);
  heap_.push_back(dispatch);
  ++size_;
}

void DispatchList::clear() noexcept {
  heap_.clear();
  size_ = 0;
}

}  // namespace stubjit
