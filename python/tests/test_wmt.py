"""probity.rank_protocol against mt-metrics-eval's own tasks.WMT24 run on the synthetic WMT24
tree (tests/golden/meta_eval/wmt24_tasks.json) and against `probity rank --protocol --json`."""

import json
import unittest

import probity
from support import REPO, run_cli

TREE = REPO / "tests" / "golden" / "inputs" / "mtme_wmt" / "wmt24"
GOLDEN = REPO / "tests" / "golden" / "meta_eval" / "wmt24_tasks.json"


class RankProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
        cls.result = probity.rank_protocol("wmt24", TREE, primary="mymetric",
                                           permutations=cls.golden["k"])

    def test_equals_mt_metrics_eval(self):
        average = {row["metric"]: row for row in self.result["average"]}
        for metric, value in self.golden["average_corrs"].items():
            self.assertEqual(average[metric]["value"], value, metric)
        for metric, value in self.golden["average_ranks"].items():
            self.assertEqual(average[metric]["average_rank"], value, metric)
        matrix = self.golden["average_corr_matrix"]
        self.assertEqual([row["metric"] for row in self.result["average"]], matrix["metrics"])
        self.assertEqual([row["rank"] for row in self.result["average"]], matrix["rank"])
        for task, want in zip(self.result["tasks"], self.golden["tasks"]):
            self.assertEqual([m["metric"] for m in task["metrics"]], want["metrics"])
            self.assertEqual([m["value"] for m in task["metrics"]], want["corr"])
            self.assertEqual([m["rank"] for m in task["metrics"]], want["rank"])

    def test_same_document_as_the_command_line(self):
        out = run_cli("rank", "--protocol", "wmt24", "--mtme", TREE, "--primary", "mymetric",
                      "--permutations", self.golden["k"], "--json").stdout
        self.assertEqual(json.loads(out), self.result)

    def test_unknown_protocol_is_a_usage_error(self):
        with self.assertRaises(probity.UsageError):
            probity.rank_protocol("wmt99", TREE)


if __name__ == "__main__":
    unittest.main()
