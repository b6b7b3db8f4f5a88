#pragma once
// The Boost.Math error policy of the stats functions: outside a distribution's domain, or where
// a value overflows or underflows, Boost returns NaN, infinity or 0 instead of throwing, as SciPy
// does; the callers decide what undefined means.
#include <boost/math/policies/policy.hpp>

namespace probity::stats::detail {

using IgnoreErrors = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::underflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;

}  // namespace probity::stats::detail
