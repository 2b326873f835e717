// Copyright 2026 The timingwheel Authors.
//
// timer_task.h
// -----------------------------------------------------------------------------
//
// What a timer holds. This file defines:
//
//   * `TimerTask`: the base class of everything a `Timer` schedules. Subclass
//     it to give a task its own state (the purgatory's operations do); plain
//     callbacks passed to `Timer::Schedule()` are wrapped in one internally.
//   * `TaskPtr<T>`: a shared, intrusively reference-counted pointer to a task.
//   * `MakeTask<T>(args...)`: creates a task and returns its first `TaskPtr`.
//
// A task is intrusive: its list links, due time, reference count and
// scheduling state live in the object itself, so scheduling allocates nothing
// beyond the task (40 bytes of bookkeeping, see `TimerTask`).

#ifndef TIMINGWHEEL_TIMER_TIMER_TASK_H_
#define TIMINGWHEEL_TIMER_TIMER_TASK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "timer/internal/task_pool.h"

namespace timingwheel {

class Timer;
class EmbeddedTimer;
template <typename T>
class TaskPtr;

namespace internal {

// ListNode: the links of an intrusive circular doubly linked list. A node
// whose `prev` is null is in no list.
struct ListNode {
  ListNode* prev = nullptr;
  ListNode* next = nullptr;
};

class TimingWheel;
class TaskState;
class TaskTestPeer;

}  // namespace internal

// TimerTask
//
// A unit of work that a `Timer` runs once its delay has elapsed. Subclass it
// and implement `Run()`; create instances with `MakeTask<T>()` and share them
// with `TaskPtr<T>`.
//
// A task is in at most one timer at a time. While it waits, the timer holds a
// reference to it, so the task stays alive even if the caller drops every
// `TaskPtr`. Adding a task that is still pending moves it to its new due time;
// adding it again after it ran or was cancelled schedules it anew.
//
// Ownership: a task belongs to the timer it was added to from that `Add()`
// until it is idle again (it ran and `Run()` returned, it was cancelled, or
// `Shutdown()` returned it). Meanwhile another timer refuses to add it
// (`absl::FailedPreconditionError`) and to cancel it (false). A task must be
// created with `MakeTask()`: `Timer::Add()` refuses any other object (a
// stack or member object, a plain `new`) with `absl::InvalidArgumentError`.
//
// Runs: a task never runs concurrently with itself, even on a thread pool: a
// scheduling that comes due while `Run()` is still running is run by the
// same thread right after it returns. `Timer::Cancel()` prevents a run as
// long as `Run()` has not started (also once the task has been handed to
// the executor), and stops a running task for good: until its `Run()`
// returns, adding it again fails with `absl::CancelledError` (so a task
// that re-adds itself from `Run()` is stopped by one `Cancel()`).
//
// Thread safety: the reference count is atomic; the scheduling fields are
// owned by the timer and guarded by its lock. `Run()` is called on the
// timer's executor with no lock of the timer held.
class TimerTask : private internal::ListNode {
 public:
  TimerTask() = default;
  TimerTask(const TimerTask&) = delete;
  TimerTask& operator=(const TimerTask&) = delete;

  // TimerTask::Run()
  //
  // The task's work. Called at most once per scheduling, on the timer's
  // executor, never before the task's due time. May add or cancel timers
  // (including re-adding this task). An exception it throws is caught by the
  // timer, counted, and passed to the timer's error hook.
  virtual void Run() = 0;

 protected:
  // TimerTask::OnCancelled()
  //
  // Called once for each scheduling of the task that ends without a run:
  // cancelled by `Timer::Cancel()` (or a handle's `Cancel()`),
  // `Timer::CancelAll()`, `Timer::Shutdown()` (for each task it returns, and
  // by the timer's destructor), or an executor that dropped the batch the
  // task was in. So every scheduling ends in exactly one call of `Run()` or
  // of `OnCancelled()` (a move of a pending task is not an end; a `Cancel()`
  // that only stops a running task's re-adds is not either). For a task that
  // owns resources: release them here. Called on the thread that cancelled
  // it (the executor's, for a dropped batch), with no lock of the timer
  // held, while the timer still holds its reference; it may add the task
  // again or call the timer. It should not throw: an exception is caught,
  // reported on stderr (once per exception type) and swallowed (a handle
  // may cancel after its timer is gone, so there is no error hook to give
  // it to). The default does nothing. Tested by
  // TimerCancelNotificationTest.
  virtual void OnCancelled() {}

  // Tasks are destroyed when their last reference goes (see `TaskPtr`).
  virtual ~TimerTask() = default;

 private:
  friend class internal::TimingWheel;
  friend class internal::TaskState;
  friend class internal::TaskTestPeer;
  friend class Timer;
  friend class TimerHandle;
  friend class EmbeddedTimer;
  template <typename T>
  friend class TaskPtr;
  template <typename T, typename... Args>
  friend TaskPtr<T> MakeTask(Args&&... args);

  // Sets the count of a task nobody else can see yet (no atomic RMW).
  void InitRefs(int32_t count) const {
    refs_.store(count, std::memory_order_relaxed);
  }
  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Whether the task was created by `MakeTask()` (or `Schedule()`) and is
  // alive: a stack object or a plain `new` has no reference, and an
  // `EmbeddedTimer` carries `kEmbeddedRefs`.
  bool Counted() const { return refs_.load(std::memory_order_relaxed) > 0; }

  // The reference count of an `EmbeddedTimer` (see embedded_timer.h): a
  // marker no counted task can have (their count is never negative). The
  // timer neither counts references to an embedded timer nor deletes it; it
  // tells it apart with `Embedded()`.
  static constexpr int32_t kEmbeddedRefs = -(int32_t{1} << 30);
  bool Embedded() const { return refs_.load(std::memory_order_relaxed) < 0; }

  // Bookkeeping, guarded by the owning timer's lock: the list links (the
  // private base) and the due time on the timer's clock. The reference count
  // and the scheduling state (see internal::TaskState: owner timer, pending,
  // handed to the executor, running, ...) are atomic: the executor's threads
  // update them without the timer's lock.
  int64_t due_nanos_ = 0;
  mutable std::atomic<int32_t> refs_{0};
  std::atomic<uint32_t> state_{0};
};

// TaskPtr
//
// A shared pointer to a task, like `std::shared_ptr` but with the count inside
// the task (no control block). Copying adds a reference; destruction drops
// one; the task is deleted with its last reference. A `TaskPtr<Derived>`
// converts to a `TaskPtr<Base>`. Thread-compatible (distinct `TaskPtr`s to
// the same task may be used from different threads).
template <typename T>
class TaskPtr {
 public:
  TaskPtr() = default;
  TaskPtr(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  TaskPtr(const TaskPtr& other) : task_(other.task_) { AddRef(); }
  TaskPtr(TaskPtr&& other) noexcept
      : task_(std::exchange(other.task_, nullptr)) {}
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  TaskPtr(const TaskPtr<U>& other)  // NOLINT(runtime/explicit)
      : task_(other.get()) {
    AddRef();
  }
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  TaskPtr(TaskPtr<U>&& other) noexcept  // NOLINT(runtime/explicit)
      : task_(other.release()) {}
  ~TaskPtr() { DropRef(); }

  TaskPtr& operator=(TaskPtr other) noexcept {
    std::swap(task_, other.task_);
    return *this;
  }

  T* get() const { return task_; }
  T* operator->() const { return task_; }
  T& operator*() const { return *task_; }
  explicit operator bool() const { return task_ != nullptr; }

  // TaskPtr::release()
  //
  // Gives up this pointer's reference without dropping it and returns the
  // task. For code that hands the reference on by hand.
  T* release() { return std::exchange(task_, nullptr); }

  // TaskPtr::Adopt()
  //
  // Wraps `task` taking over one reference that the caller already owns.
  static TaskPtr Adopt(T* task) {
    TaskPtr result;
    result.task_ = task;
    return result;
  }

  friend bool operator==(const TaskPtr& a, const TaskPtr& b) {
    return a.task_ == b.task_;
  }
  friend bool operator!=(const TaskPtr& a, const TaskPtr& b) {
    return a.task_ != b.task_;
  }

 private:
  void AddRef() const {
    if (task_ != nullptr) static_cast<const TimerTask*>(task_)->Ref();
  }
  void DropRef() const {
    if (task_ != nullptr) static_cast<const TimerTask*>(task_)->Unref();
  }

  T* task_ = nullptr;
};

// MakeTask()
//
// Creates a `T` (a `TimerTask` subclass) from `args` and returns the first
// reference to it.
//
// Example:
//   class Heartbeat : public timingwheel::TimerTask {
//    public:
//     void Run() override { SendHeartbeat(); }
//   };
//   timingwheel::TaskPtr<Heartbeat> beat = timingwheel::MakeTask<Heartbeat>();
//   timer->Add(beat, absl::Seconds(1));
template <typename T, typename... Args>
TaskPtr<T> MakeTask(Args&&... args) {
  static_assert(std::is_base_of_v<TimerTask, T>,
                "MakeTask<T>: T must derive from timingwheel::TimerTask");
  T* task = new T(std::forward<Args>(args)...);
  static_cast<const TimerTask*>(task)->InitRefs(1);
  return TaskPtr<T>::Adopt(task);
}

namespace internal {

// CallbackStorage: holds a callable; an empty one (a lambda without
// captures) as a base class, so that it costs no bytes (the empty base
// optimization).
template <typename F, bool = std::is_empty_v<F> && !std::is_final_v<F>>
class CallbackStorage {
 protected:
  template <typename G>
  explicit CallbackStorage(G&& callback)
      : callback_(std::forward<G>(callback)) {}
  F& callback() { return callback_; }

 private:
  F callback_;
};

template <typename F>
class CallbackStorage<F, true> : private F {
 protected:
  template <typename G>
  explicit CallbackStorage(G&& callback) : F(std::forward<G>(callback)) {}
  F& callback() { return *this; }
};

// CallbackTask: the task `Timer::Schedule()` wraps a callable in. A lambda
// without captures costs no bytes beyond the 40 of `TimerTask`. Its memory
// comes from the task pool (task_pool.h: per-thread caches, no page faulted
// twice), unless it is over-aligned or larger than the pool's blocks.
template <typename F>
class CallbackTask final : public TimerTask, private CallbackStorage<F> {
 public:
  template <typename G>
  explicit CallbackTask(G&& callback)
      : CallbackStorage<F>(std::forward<G>(callback)) {}

  void Run() override { this->callback()(); }

  // Used by `new` and by `delete this` (the virtual destructor passes the
  // size of this class): both pick the same allocator from the type alone.
  static void* operator new(std::size_t size) {
    if constexpr (kPooled) {
      return TaskPool::Allocate(size);
    } else {
      return ::operator new (size, std::align_val_t{alignof(CallbackTask)});
    }
  }
  static void operator delete(void* block, std::size_t size) noexcept {
    if constexpr (kPooled) {
      TaskPool::Free(block, size);
    } else {
      // Unsized: clang declares sized deletes only with -fsized-deallocation.
      (void)size;
      ::operator delete (block, std::align_val_t{alignof(CallbackTask)});
    }
  }

 private:
  static constexpr bool kPooled =
      alignof(CallbackStorage<F>) <= TaskPool::kAlignment &&
      alignof(TimerTask) <= TaskPool::kAlignment;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_TASK_H_
