"""bertscore from Python: the registry's metric, fitted on the given texts (IDF), with a
word-vector file."""

import math
import os
import tempfile
import unittest

import probity


class BertScoreFromPython(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.vec = os.path.join(self.dir.name, "glove.txt")
        with open(self.vec, "w") as f:
            f.write("cat 1 0 0\ndog 0.8 0.6 0\nsat 0 0 1\n")

    def tearDown(self):
        self.dir.cleanup()

    def test_parts_and_idf(self):
        spec = f"bertscore,embed=file:{self.vec}"
        p = probity.score(spec.replace("bertscore", "bertscore.p"), ["cat", "cat sat"], ["dog", "dog"])
        self.assertAlmostEqual(p[0], 0.8, places=12)
        # "cat sat" vs "dog": best cosines 0.8 and 0 (sat . dog = 0), mean 0.4.
        self.assertAlmostEqual(p[1], 0.4, places=12)
        # With IDF over the two references ("dog" in both: idf 0, so recall is 0/0 -> F 0).
        f = probity.score(spec + ",idf=true", ["cat", "cat sat"], ["dog", "dog"])
        self.assertEqual(list(f), [0.0, 0.0])
        r = probity.score(spec.replace("bertscore", "bertscore.r") + ",idf=true",
                          ["cat", "cat"], ["dog", "dog sat"])
        self.assertTrue(math.isnan(r[0]))  # the only reference token weighs log(3/3) = 0
        self.assertAlmostEqual(r[1], 0.0, places=12)  # only "sat" weighs, and cat.sat = 0


if __name__ == "__main__":
    unittest.main()
