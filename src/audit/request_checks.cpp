#include "audit/request_checks.hpp"

#include "probity/limits.hpp"
#include "util/number_check.hpp"

namespace probity::audit {

namespace {

const util::RealBounds kOpenUnit{0.0, 1.0, true, true};

}  // namespace

void check_request(const AttackOptions& o) {
  util::check_whole("budget", o.budget, {1, limits::kAttackBudget});
  util::check_whole("steps", o.steps, {1, limits::kAttackSteps});
  util::check_whole("beam", o.beam, {1, limits::kAttackBeam});
  util::check_whole("proposals", o.proposals, {1, limits::kAttackProposals});
  util::check_whole("program_length", o.program_length, {1, limits::kProgramLength});
  util::check_whole("programs", o.programs, {0, limits::kPrograms});
  util::check_whole("phrase_words", o.phrase_words, {1, limits::kSuffixWords});
  util::check_whole("phrase_candidates", o.phrase_candidates, {1, limits::kPrograms});
  util::check_whole("suffix_words", o.suffix_words, {1, limits::kSuffixWords});
  util::check_whole("suffix_iterations", o.suffix_iterations, {0, limits::kAttackBudget});
  util::check_whole("bootstrap", o.bootstrap, {0, limits::kResamples});
  util::check_whole("min_applied", o.min_applied, {0, limits::kItems});
  util::check_whole("examples", o.examples, {0, limits::kPrograms});
  util::check_whole("threads", o.threads, {0, limits::kThreads});
  util::check_real("delta", o.delta, {});
  util::check_real("tolerance", o.tolerance, {0, 1});
  util::check_real("split", o.split, kOpenUnit);
  util::check_real("alpha", o.alpha, kOpenUnit);
  util::check_real("margin", o.margin, {0.0, 10.0});
  util::check_real("confidence", o.confidence, kOpenUnit);
}

void check_request(const AuditOptions& o) {
  if (o.sample) util::check_whole("sample", *o.sample, {0, limits::kItems});
  util::check_whole("bootstrap", o.bootstrap, {0, limits::kResamples});
  util::check_whole("min_applied", o.min_applied, {0, limits::kItems});
  util::check_whole("threads", o.threads, {0, limits::kThreads});
  util::check_whole("rank_permutations", o.rank_permutations, {1, limits::kResamples});
  util::check_real("alpha", o.alpha, kOpenUnit);
  util::check_real("margin", o.margin, {0.0, 10.0});
  util::check_real("confidence", o.confidence, kOpenUnit);
  if (o.attack) check_request(o.attack_options);
}

}  // namespace probity::audit
