// Copyright 2026 The timingwheel Authors.
//
// node_pool.h
// -----------------------------------------------------------------------------
//
// `NodePool<Node>`: the slab the hand-written baselines keep their timers in.
// Nodes are addressed by 32-bit index (so links survive the vector growing)
// and named to users by a `TimerId` that packs the index with a generation,
// so a stale id (the timer already fired or was cancelled) is recognised.
// Not thread-safe: used under its owner's lock.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_NODE_POOL_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_NODE_POOL_H_

#include <cstdint>
#include <vector>

#include "benchmarks/baselines/timer_under_test.h"

namespace timingwheel {
namespace bench {

// kNil: the index of no node.
inline constexpr uint32_t kNil = 0xffffffffu;

// NodePool
//
// `Node` must have the fields `uint32_t generation` and `bool live`.
template <typename Node>
class NodePool {
 public:
  // NodePool::Allocate()
  //
  // Returns the index of a fresh live node (reusing freed ones first).
  uint32_t Allocate() {
    uint32_t index;
    if (free_.empty()) {
      index = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    } else {
      index = free_.back();
      free_.pop_back();
    }
    nodes_[index].live = true;
    return index;
  }

  // NodePool::Free()
  //
  // Returns node `index` to the pool; ids naming it become stale.
  void Free(uint32_t index) {
    Node& node = nodes_[index];
    node.live = false;
    ++node.generation;
    free_.push_back(index);
  }

  // NodePool::IdOf() / Find()
  //
  // The id of live node `index`; the index of the live node named by `id`,
  // or `kNil`.
  TimerId IdOf(uint32_t index) const {
    return (uint64_t{nodes_[index].generation} << 32) | (uint64_t{index} + 1);
  }
  uint32_t Find(TimerId id) const {
    const uint64_t low = id & 0xffffffffu;
    if (low == 0 || low > nodes_.size()) return kNil;
    const uint32_t index = static_cast<uint32_t>(low - 1);
    const Node& node = nodes_[index];
    if (!node.live || node.generation != static_cast<uint32_t>(id >> 32)) {
      return kNil;
    }
    return index;
  }

  Node& operator[](uint32_t index) { return nodes_[index]; }

  size_t live() const { return nodes_.size() - free_.size(); }

 private:
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_NODE_POOL_H_
