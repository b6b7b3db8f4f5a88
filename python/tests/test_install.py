"""`cmake --install <build> --prefix P` installs everything, the Python package included.

The install goes to a temporary prefix, not to the system.
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

from support import BUILD, SAMPLE


def site_dir():
    """The package's directory relative to the prefix, as configured."""
    cache = (BUILD / "CMakeCache.txt").read_text(encoding="utf-8")
    return re.search(r"^PROBITY_PYTHON_SITE_DIR:STRING=(.*)$", cache, re.M).group(1)


class Install(unittest.TestCase):
    def test_prefix_install(self):
        target = site_dir()
        self.assertFalse(os.path.isabs(target))
        with tempfile.TemporaryDirectory() as prefix:
            subprocess.run(["cmake", "--install", str(BUILD), "--prefix", prefix], check=True,
                           capture_output=True)
            root = pathlib.Path(prefix)
            for path in ("bin/probity", "share/probity/prompts/judge_rating.v1.txt",
                         "share/probity/data/summeval/summeval_sample20.jsonl",
                         "share/man/man1/probity.1",
                         "share/bash-completion/completions/probity",
                         "share/zsh/vendor-completions/_probity",
                         "share/doc/probity/examples/probity.toml"):
                self.assertTrue((root / path).is_file(), path)
            site = root / target
            files = sorted(p.name for p in (site / "probity").iterdir())
            self.assertIn("__init__.py", files)
            self.assertTrue(any(f.startswith("_probity.") and f.endswith(".so") for f in files))
            # A fresh interpreter, without the build tree or the real user site on its path.
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env["PYTHONPATH"] = str(site)
            code = ("import probity; print(probity.__file__); "
                    f"print(probity.score_dataset({str(SAMPLE)!r}, 'bleu')['bleu'].shape); "
                    "print(probity._probity.prompts_dir())")
            out = subprocess.run([sys.executable, "-s", "-c", code], env=env, cwd=prefix,
                                 check=True, capture_output=True, text=True).stdout.split("\n")
            self.assertTrue(out[0].startswith(str(site)), out)
            self.assertEqual(out[1], "(320,)")
            # The installed package reads the prompt templates installed inside it.
            self.assertEqual(out[2], str(site / "probity" / "prompts"))
            self.assertTrue((site / "probity" / "prompts" / "judge_rating.v1.txt").is_file())


if __name__ == "__main__":
    unittest.main()
