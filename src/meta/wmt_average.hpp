#pragma once
// The task set's averages as mt-metrics-eval computes them (tasks.py TaskSetResults):
// AverageCorrs, AverageRanks and AverageCorrMatrix, the last reusing every task's permutation
// draws so that the average gets a significance test of its own.
#include "probity/wmt.hpp"

namespace probity::detail {

// Fills result.average and result.average_sig from result.tasks (their values, ranks, draws and
// weights). Only metrics present in every task are averaged, as mt-metrics-eval does.
void average_wmt_tasks(WmtRankResult& result, double alpha);

}  // namespace probity::detail
