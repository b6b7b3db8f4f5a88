#include "util/parallel.hpp"

#include <deque>
#include <vector>

namespace probity::util {

namespace {
// Set on pool workers: a loop started inside a slot runs on that thread alone, so that it never
// waits for workers that are all busy with the outer loop.
thread_local bool t_in_worker = false;
}  // namespace

void Job::work() {
  for (;;) {
    const std::size_t slot = next_.fetch_add(1, std::memory_order_relaxed);
    if (slot >= slots_ || failed_.load(std::memory_order_relaxed)) return;
    try {
      body_(slot);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
      return;
    }
  }
}

struct ThreadPool::Impl {
  std::mutex mutex;
  std::condition_variable wake;
  // Jobs on offer, and how many more workers each may take.
  std::deque<std::pair<Job*, unsigned>> offers;
  std::vector<std::thread> threads;
  bool stopping = false;

  void loop() {
    t_in_worker = true;
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stopping || !offers.empty(); });
      if (stopping) return;
      Job* job = offers.front().first;
      if (--offers.front().second == 0) offers.pop_front();
      {
        // Registered while the offer is still held under the pool's lock, so the job's owner,
        // which withdraws the offer under that lock, knows of every helper it must wait for.
        std::lock_guard job_lock(job->mutex_);
        ++job->helpers_;
      }
      lock.unlock();
      job->work();
      {
        std::lock_guard job_lock(job->mutex_);
        --job->helpers_;
        job->left_.notify_all();
      }
      lock.lock();
    }
  }
};

ThreadPool::ThreadPool() : impl_(new Impl) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < cores; ++i) impl_->threads.emplace_back([this] { impl_->loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  for (auto& t : impl_->threads) t.join();
  delete impl_;
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool;
  return pool;
}

unsigned ThreadPool::workers() const {
  return static_cast<unsigned>(impl_->threads.size());
}

void ThreadPool::run_job(Job& job, unsigned helpers) {
  helpers = std::min(helpers, workers());
  if (t_in_worker) helpers = 0;
  if (helpers > 0) {
    {
      std::lock_guard lock(impl_->mutex);
      impl_->offers.emplace_back(&job, helpers);
    }
    if (helpers == 1)
      impl_->wake.notify_one();
    else
      impl_->wake.notify_all();
  }
  job.work();
  if (helpers > 0) {
    {
      // Withdraw what no worker has taken yet: nobody may join after this.
      std::lock_guard lock(impl_->mutex);
      std::erase_if(impl_->offers, [&](const auto& offer) { return offer.first == &job; });
    }
    // Every slot is taken (or abandoned after a failure); wait for the helpers to finish theirs.
    std::unique_lock job_lock(job.mutex_);
    job.left_.wait(job_lock, [&] { return job.helpers_ == 0; });
  }
  if (job.failure_) std::rethrow_exception(job.failure_);
}

}  // namespace probity::util
