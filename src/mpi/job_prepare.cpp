// stubjit::mpi::prepare: rounds of "what does each rank lack" (one allgather), "who
// compiles what" (decided alike on every rank from what all ranks sent, no message),
// and "here are the binaries" (one allgather), until no rank lacks anything. Every
// decision that ends the call (a refused launch, a compile error) is taken from data
// every rank has, so that all ranks return or all throw, and none waits in a
// collective that another has left.
#include <climits>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mpi/wire.hpp"
#include "stubjit/error.hpp"
#include "stubjit/mpi.hpp"

namespace stubjit::mpi {
namespace {

// A launch of more stages than this would need more rounds; none has more than three.
constexpr std::size_t max_rounds = 16;

void check(int code, const char* call) {
  // With the default handler (MPI_ERRORS_ARE_FATAL) MPI aborts first; with
  // MPI_ERRORS_RETURN on the communicator, the call fails here.
  if (code != MPI_SUCCESS)
    throw Error(std::string("stubjit::mpi::prepare: ") + call + " failed (MPI error " +
                std::to_string(code) + ")");
}

// Every rank's `mine`, in rank order.
std::vector<std::vector<char>> allgather(MPI_Comm comm, int ranks, const std::vector<char>& mine) {
  const std::uint64_t size = mine.size();
  std::vector<std::uint64_t> sizes(ranks);
  check(MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm),
        "MPI_Allgather");
  std::vector<int> counts(ranks), offsets(ranks);
  std::uint64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = static_cast<int>(total);
    counts[r] = static_cast<int>(sizes[r]);
    total += sizes[r];
    // Every rank sees the same sizes, so every rank refuses alike.
    if (total > static_cast<std::uint64_t>(INT_MAX))
      throw Error("stubjit::mpi::prepare: one exchange would carry " + std::to_string(total) +
                  " bytes, more than MPI_Allgatherv can (2 GiB); prepare fewer launches per call");
  }
  std::vector<char> all(total);
  check(MPI_Allgatherv(mine.data(), static_cast<int>(size), MPI_BYTE, all.data(), counts.data(),
                       offsets.data(), MPI_BYTE, comm),
        "MPI_Allgatherv");
  std::vector<std::vector<char>> out(ranks);
  for (int r = 0; r < ranks; ++r)
    out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
  return out;
}

// For each rank, the lowest rank of its node (ranks that share memory).
std::vector<int> node_leaders(MPI_Comm comm, int rank, int ranks) {
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int leader = rank;
  const int reduced = MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  check(reduced, "MPI_Allreduce");
  std::vector<int> leaders(ranks);
  check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm), "MPI_Allgather");
  return leaders;
}

void write_order(wire::Writer& out, const StubOrder& order) {
  out.text(order.toolchain);
  out.text(order.key);
  out.text(order.key_text);
  out.text(order.kernel);
  out.text(order.source);
  out.text(order.file_name);
  out.text(order.entry);
}

StubOrder read_order(wire::Reader& in) {
  StubOrder order;
  order.toolchain = in.text();
  order.key = in.text();
  order.key_text = in.text();
  order.kernel = in.text();
  order.source = in.text();
  order.file_name = in.text();
  order.entry = in.text();
  return order;
}

// What one rank sent in a round's first exchange.
struct RankNeeds {
  std::string toolchain;
  std::string refusal;  // why it could not say what it lacks; empty: it could
  std::vector<StubOrder> orders;
};

// A stub some ranks lack: its order and those ranks.
using StubId = std::pair<std::string, std::string>;  // toolchain, key
struct Wanted {
  StubOrder order;
  std::vector<int> ranks;
};

struct Failure {
  int rank = 0;  // the rank that tried to compile it
  std::string log;
  std::string message;
};

}  // namespace

JobPrepareSummary prepare(MPI_Comm comm, Runtime& runtime,
                          const std::vector<PlannedLaunch>& launches) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Error(
        "stubjit::mpi::prepare: MPI is not initialized (call MPI_Init first) or is "
        "already finalized");
  int rank = 0, ranks = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  const std::vector<int> node_of = node_leaders(comm, rank, ranks);
  const std::string toolchain = StubExchange::toolchain(runtime);

  JobPrepareSummary summary;
  std::set<std::string> installed;
  std::string pending_refusal;  // an install that failed: said in the next round
  for (std::size_t round = 0;; ++round) {
    // 1. What this rank lacks (or why it cannot say), to every rank.
    std::vector<StubOrder> mine;
    std::exception_ptr refused;
    std::string refusal = pending_refusal;
    if (refusal.empty()) {
      try {
        mine = StubExchange::missing(runtime, launches);
        for (const StubOrder& order : mine) {
          if (installed.count(order.key))
            throw Error("stubjit::mpi::prepare: the stub " + order.key + " of kernel '" +
                        order.kernel + "' was installed, yet its launch still lacks it");
        }
        if (!mine.empty() && round == max_rounds)
          throw Error("stubjit::mpi::prepare: launches still lack stubs after " +
                      std::to_string(max_rounds) + " rounds");
      } catch (const std::exception& error) {
        refused = std::current_exception();
        refusal = error.what();
        mine.clear();
      }
    }
    wire::Writer needs_out;
    needs_out.text(toolchain);
    needs_out.text(refusal);
    needs_out.number(mine.size());
    for (const StubOrder& order : mine) write_order(needs_out, order);
    const std::vector<std::vector<char>> all_needs = allgather(comm, ranks, needs_out.buffer());

    std::vector<RankNeeds> needs(ranks);
    for (int r = 0; r < ranks; ++r) {
      wire::Reader in(all_needs[r].data(), all_needs[r].size());
      needs[r].toolchain = in.text();
      needs[r].refusal = in.text();
      for (std::uint64_t n = in.number(); n > 0; --n) needs[r].orders.push_back(read_order(in));
    }
    // 2. A refusal anywhere ends the call everywhere.
    if (refused) std::rethrow_exception(refused);
    for (int r = 0; r < ranks; ++r) {
      if (!needs[r].refusal.empty())
        throw Error("stubjit::mpi::prepare: rank " + std::to_string(r) +
                    " could not prepare its launches: " + needs[r].refusal);
    }

    // 3. Who compiles what: the stubs of each toolchain in key order, dealt in turn to
    // the ranks of that toolchain (those that need nothing included).
    std::map<StubId, Wanted> wanted;
    for (int r = 0; r < ranks; ++r) {
      for (StubOrder& order : needs[r].orders) {
        Wanted& want = wanted[{order.toolchain, order.key}];
        if (want.ranks.empty()) want.order = std::move(order);
        want.ranks.push_back(r);
      }
    }
    if (wanted.empty()) break;
    ++summary.rounds;
    summary.stubs_in_job += wanted.size();
    std::map<std::string, std::vector<int>> able;
    for (int r = 0; r < ranks; ++r) able[needs[r].toolchain].push_back(r);
    std::map<std::string, std::size_t> dealt;
    wire::Writer results_out;
    std::vector<const Wanted*> to_compile;
    for (const auto& [id, want] : wanted) {
      const std::vector<int>& candidates = able[id.first];
      if (candidates[dealt[id.first]++ % candidates.size()] == rank) to_compile.push_back(&want);
    }

    // 4. Compile this rank's share; the binaries or failures, to every rank.
    results_out.number(to_compile.size());
    for (const Wanted* want : to_compile) {
      results_out.text(want->order.toolchain);
      results_out.text(want->order.key);
      try {
        const StubBinary binary = StubExchange::compile(runtime, want->order);
        ++summary.compiled_here;
        results_out.number(1);
        results_out.text(binary.format);
        results_out.bytes(binary.bytes.data(), binary.bytes.size());
      } catch (const CompileError& error) {
        results_out.number(0);
        results_out.text(error.log());
        results_out.text(error.what());
      } catch (const std::exception& error) {
        results_out.number(0);
        results_out.text("");
        results_out.text(error.what());
      }
    }
    const std::vector<std::vector<char>> all_results = allgather(comm, ranks, results_out.buffer());

    // 5. Keep what this rank lacked; of a node's ranks that lacked a stub, the lowest
    // writes it to disk.
    std::map<StubId, Failure> failures;
    for (int r = 0; r < ranks; ++r) {
      wire::Reader in(all_results[r].data(), all_results[r].size());
      for (std::uint64_t n = in.number(); n > 0; --n) {
        StubId id;
        id.first = in.text();
        id.second = in.text();
        if (in.number() == 0) {
          Failure failure{r, in.text(), in.text()};
          failures.emplace(std::move(id), std::move(failure));
          continue;
        }
        StubBinary binary;
        binary.format = in.text();
        binary.bytes = in.bytes();
        const auto found = wanted.find(id);
        if (found == wanted.end()) continue;
        const std::vector<int>& needers = found->second.ranks;
        bool needed = false;
        int writer = -1;
        for (const int needer : needers) {
          needed = needed || needer == rank;
          if (node_of[needer] == node_of[rank] && writer < 0) writer = needer;
        }
        if (!needed || !pending_refusal.empty()) continue;
        try {
          StubExchange::install(runtime, found->second.order, binary, writer == rank);
          installed.insert(id.second);
          ++summary.installed_here;
          if (writer == rank) ++summary.written_to_disk;
        } catch (const std::exception& error) {
          // Said to every rank in the next round's exchange, which ends the call.
          pending_refusal = error.what();
        }
      }
    }
    if (!failures.empty()) {
      const auto& [id, failure] = *failures.begin();
      const StubOrder& order = wanted.at(id).order;
      if (!failure.log.empty()) throw CompileError(order.kernel, failure.log, order.source);
      throw Error("stubjit::mpi::prepare: rank " + std::to_string(failure.rank) +
                  " could not compile the stub of kernel '" + order.kernel +
                  "': " + failure.message);
    }
  }
  return summary;
}

}  // namespace stubjit::mpi
