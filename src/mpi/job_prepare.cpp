// stubjit::mpi::prepare: rounds of "which stubs does each rank lack" (keys only, one
// allgather), "who compiles what" (decided alike on every rank from what all ranks
// sent: each stub by one of the ranks that lack it, so no source travels), and "here
// are the binaries" (one allgather), until no rank lacks anything. Every decision that
// ends the call (a refused launch, a compile error, a failed allocation) is taken from
// data every rank has, so that all ranks return or all throw, and none waits in a
// collective that another has left.
#include <climits>
#include <exception>
#include <map>
#include <new>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mpi/wire.hpp"
#include "stubjit/error.hpp"
#include "stubjit/mpi.hpp"

namespace stubjit::mpi {
namespace {

// A launch of more stages than this would need more rounds; none has more than two.
constexpr std::size_t max_rounds = 16;

void check(int code, const char* call) {
  // With the default handler (MPI_ERRORS_ARE_FATAL) MPI aborts first; with
  // MPI_ERRORS_RETURN on the communicator, the call fails here, on every rank alike.
  if (code != MPI_SUCCESS)
    throw Error(std::string("stubjit::mpi::prepare: ") + call + " failed (MPI error " +
                std::to_string(code) + ")");
}

// Every rank's message, in one buffer: rank r's from offsets[r], sizes[r] bytes.
struct Gathered {
  std::vector<char> bytes;
  std::vector<int> offsets, sizes;
  wire::Reader from(int rank) const {
    return {bytes.data() + offsets[rank], std::size_t(sizes[rank])};
  }
};

Gathered allgather(MPI_Comm comm, int ranks, const std::vector<char>& mine) {
  const std::uint64_t size = mine.size();
  std::vector<std::uint64_t> sizes(ranks);
  check(MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm),
        "MPI_Allgather");
  Gathered out;
  out.offsets.resize(ranks);
  out.sizes.resize(ranks);
  std::uint64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    out.offsets[r] = static_cast<int>(total);
    out.sizes[r] = static_cast<int>(sizes[r]);
    total += sizes[r];
    // Every rank sees the same sizes, so every rank refuses alike.
    if (total > static_cast<std::uint64_t>(INT_MAX))
      throw Error("stubjit::mpi::prepare: one exchange would carry " + std::to_string(total) +
                  " bytes, more than MPI_Allgatherv can (2 GiB); prepare fewer launches per call");
  }
  // A rank that cannot hold the exchange says so before it: all then throw.
  int allocated = 1;
  try {
    out.bytes.resize(total);
  } catch (const std::bad_alloc&) {
    allocated = 0;
  }
  int everywhere = 0;
  check(MPI_Allreduce(&allocated, &everywhere, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!everywhere)
    throw Error("stubjit::mpi::prepare: a rank could not allocate the " + std::to_string(total) +
                " bytes of an exchange");
  check(MPI_Allgatherv(mine.data(), static_cast<int>(size), MPI_BYTE, out.bytes.data(),
                       out.sizes.data(), out.offsets.data(), MPI_BYTE, comm),
        "MPI_Allgatherv");
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

// A rank's reason to end the call, sent to every rank. A CompileError keeps its parts,
// so that every rank can raise it.
struct Refusal {
  std::string message;  // empty: none
  bool compile_error = false;
  std::string kernel, log, source;
};

Refusal refusal_of(const std::exception_ptr& failure) {
  Refusal refusal;
  try {
    std::rethrow_exception(failure);
  } catch (const CompileError& error) {
    refusal = {error.what(), true, error.kernel(), error.log(), error.source()};
  } catch (const std::exception& error) {
    refusal.message = error.what();
  }
  return refusal;
}

void write_refusal(wire::Writer& out, const Refusal& refusal) {
  out.text(refusal.message);
  out.number(refusal.compile_error ? 1 : 0);
  out.text(refusal.kernel);
  out.text(refusal.log);
  out.text(refusal.source);
}

Refusal read_refusal(wire::Reader& in) {
  Refusal refusal;
  refusal.message = in.text();
  refusal.compile_error = in.number() != 0;
  refusal.kernel = in.text();
  refusal.log = in.text();
  refusal.source = in.text();
  return refusal;
}

// Raises, on this rank, the refusal that rank `from` sent while it `was_doing`.
[[noreturn]] void raise(const Refusal& refusal, int from, const char* was_doing) {
  if (refusal.compile_error && !refusal.log.empty())
    throw CompileError(refusal.kernel, refusal.log, refusal.source);
  throw Error("stubjit::mpi::prepare: rank " + std::to_string(from) + " could not " + was_doing +
              ": " + refusal.message);
}

// A stub some ranks lack (toolchain, key), those ranks, and the one that compiles it.
using StubId = std::pair<std::string, std::string>;
struct Wanted {
  std::vector<int> ranks;
  int compiler = -1;
};

// Each stub to the rank that lacks it with the fewest stubs dealt so far (the lowest of
// those on a tie), in (toolchain, key) order: every rank computes the same deal.
void deal(std::map<StubId, Wanted>& wanted, int ranks) {
  std::vector<std::size_t> load(ranks, 0);
  for (auto& [id, want] : wanted) {
    int best = want.ranks.front();
    for (const int r : want.ranks)
      if (load[r] < load[best]) best = r;
    want.compiler = best;
    ++load[best];
  }
}

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
  std::exception_ptr pending;  // an install that failed: said in the next round
  for (std::size_t round = 0;; ++round) {
    // 1. The keys of what this rank lacks (or why it cannot say), to every rank.
    std::map<std::string, StubOrder> mine;
    std::exception_ptr refused = pending;
    if (!refused) {
      try {
        for (StubOrder& order : StubExchange::missing(runtime, launches)) {
          if (installed.count(order.key))
            throw Error("stubjit::mpi::prepare: the stub " + order.key + " of kernel '" +
                        order.kernel +
                        "' was installed, yet its launch lacks it again: more stubs than the "
                        "runtime's memory store keeps (RuntimeOptions::memory_cache_stubs) in "
                        "one call; prepare fewer launches per call, or raise it");
          mine.emplace(order.key, std::move(order));
        }
        if (!mine.empty() && round == max_rounds)
          throw Error("stubjit::mpi::prepare: launches still lack stubs after " +
                      std::to_string(max_rounds) + " rounds");
      } catch (...) {
        refused = std::current_exception();
        mine.clear();
      }
    }
    wire::Writer needs_out;
    write_refusal(needs_out, refused ? refusal_of(refused) : Refusal{});
    needs_out.text(toolchain);
    needs_out.number(mine.size());
    for (const auto& [key, order] : mine) needs_out.text(key);
    const Gathered needs = allgather(comm, ranks, needs_out.buffer());

    // 2. A refusal anywhere ends the call everywhere (this rank's own error first).
    std::map<StubId, Wanted> wanted;
    std::vector<Refusal> refusals(ranks);
    std::vector<std::string> toolchain_of(ranks);
    for (int r = 0; r < ranks; ++r) {
      wire::Reader in = needs.from(r);
      refusals[r] = read_refusal(in);
      toolchain_of[r] = in.text();
      for (std::uint64_t n = in.number(); n > 0; --n)
        wanted[{toolchain_of[r], in.text()}].ranks.push_back(r);
    }
    if (refused) std::rethrow_exception(refused);
    for (int r = 0; r < ranks; ++r)
      if (!refusals[r].message.empty()) raise(refusals[r], r, "prepare its launches");
    if (wanted.empty()) break;
    ++summary.rounds;
    summary.stubs_in_job += wanted.size();

    // 3. Compile this rank's share: stubs it lacks itself, so it has their orders.
    deal(wanted, ranks);
    wire::Writer results_out;
    Refusal failed;  // nothing may leave this rank between the two exchanges
    try {
      std::vector<const StubOrder*> share;
      for (const auto& [id, want] : wanted)
        if (want.compiler == rank) share.push_back(&mine.at(id.second));
      results_out.number(share.size());
      for (const StubOrder* order : share) {
        results_out.text(order->key);
        try {
          const StubBinary binary = StubExchange::compile(runtime, *order);
          ++summary.compiled_here;
          results_out.number(1);
          results_out.text(binary.format);
          results_out.bytes(binary.bytes.data(), binary.bytes.size());
        } catch (const CompileError& error) {
          results_out.number(0);
          write_refusal(results_out, refusal_of(std::current_exception()));
        }
      }
    } catch (...) {
      failed = refusal_of(std::current_exception());
      results_out = wire::Writer{};
    }
    wire::Writer message;
    write_refusal(message, failed);
    message.bytes(results_out.buffer().data(), results_out.buffer().size());
    const Gathered results = allgather(comm, ranks, message.buffer());

    // 4. Keep what this rank lacked; of a node's ranks that lacked a stub, the lowest
    // writes it to disk. A compile error, or a rank that failed, ends the call
    // everywhere, after the binaries that arrived are kept.
    std::map<StubId, std::pair<int, Refusal>> failures;
    std::pair<int, Refusal> broken{-1, Refusal{}};
    for (int r = 0; r < ranks; ++r) {
      wire::Reader outer = results.from(r);
      Refusal rank_failed = read_refusal(outer);
      const std::vector<char> body = outer.bytes();
      if (!rank_failed.message.empty()) {
        if (broken.first < 0) broken = {r, std::move(rank_failed)};
        continue;
      }
      wire::Reader in(body.data(), body.size());
      for (std::uint64_t n = in.number(); n > 0; --n) {
        const std::string key = in.text();
        const bool ok = in.number() != 0;
        StubBinary binary;
        Refusal compile_failure;
        if (ok) {
          binary.format = in.text();
          binary.bytes = in.bytes();
        } else {
          compile_failure = read_refusal(in);
        }
        // Rank r compiles stubs its own toolchain makes, which it lacks itself.
        const auto found = wanted.find({toolchain_of[r], key});
        if (found == wanted.end() || found->second.compiler != r) continue;
        if (!ok) {
          failures.emplace(found->first, std::make_pair(r, std::move(compile_failure)));
          continue;
        }
        const auto order = mine.find(key);
        if (toolchain_of[r] != toolchain || order == mine.end() || pending) continue;
        int writer = -1;
        for (const int needer : found->second.ranks)
          if (node_of[needer] == node_of[rank] && writer < 0) writer = needer;
        binary.cache_name = key;
        binary.entry = order->second.entry;
        try {
          if (StubExchange::install(runtime, order->second, binary, writer == rank))
            ++summary.written_to_disk;
          installed.insert(key);
          ++summary.installed_here;
        } catch (...) {
          pending = std::current_exception();  // said to every rank next round
        }
      }
    }
    if (broken.first >= 0) raise(broken.second, broken.first, "compile its share");
    // The first failure in (toolchain, key) order, the same on every rank.
    if (!failures.empty()) {
      const auto& [r, refusal] = failures.begin()->second;
      raise(refusal, r, "compile a stub");
    }
  }
  return summary;
}

}  // namespace stubjit::mpi
