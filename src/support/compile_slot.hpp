// One compile's place under the node-wide cap on compiles (STUBJIT_MAX_PARALLEL_COMPILES,
// docs/cluster.md): held around the compiler, from the moment a slot is free to the
// end of the compile.
#pragma once

#include <memory>
#include <string>

namespace stubjit::detail {

class SlotSemaphore;

class CompileSlot {
 public:
  // Waits for a slot of the cap the environment names, behind the compiles of this
  // user on the node that asked first. With no cap, or none to be had (then one info
  // line says why), it waits for nothing.
  explicit CompileSlot(std::string kernel);
  ~CompileSlot();
  CompileSlot(const CompileSlot&) = delete;
  CompileSlot& operator=(const CompileSlot&) = delete;

 private:
  std::string kernel_;
  unsigned cap_ = 0;                          // the slots of the cap held; 0: none held
  std::shared_ptr<SlotSemaphore> semaphore_;  // the set the slot is of; null: none held
};

}  // namespace stubjit::detail
