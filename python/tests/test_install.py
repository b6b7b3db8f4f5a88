"""`cmake --install <build> --component python` installs a working package.

The install goes to a staging directory (DESTDIR), not to the real user site-packages.
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

from support import BUILD, SAMPLE


def install_dir():
    cache = (BUILD / "CMakeCache.txt").read_text(encoding="utf-8")
    return re.search(r"^PROBITY_PYTHON_INSTALL_DIR:PATH=(.*)$", cache, re.M).group(1)


class Install(unittest.TestCase):
    def test_component_install(self):
        target = install_dir()
        self.assertTrue(os.path.isabs(target))
        with tempfile.TemporaryDirectory() as stage:
            env = dict(os.environ, DESTDIR=stage)
            subprocess.run(["cmake", "--install", str(BUILD), "--component", "python"],
                           env=env, check=True, capture_output=True)
            site = pathlib.Path(stage + target)
            files = sorted(p.name for p in (site / "probity").iterdir())
            self.assertIn("__init__.py", files)
            self.assertTrue(any(f.startswith("_probity.") and f.endswith(".so") for f in files))
            # A fresh interpreter, without the build tree or the real user site on its path.
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env["PYTHONPATH"] = str(site)
            code = ("import probity; print(probity.__file__); "
                    f"print(probity.score_dataset({str(SAMPLE)!r}, 'bleu')['bleu'].shape); "
                    "print(probity._probity.prompts_dir())")
            out = subprocess.run([sys.executable, "-s", "-c", code], env=env, cwd=stage,
                                 check=True, capture_output=True, text=True).stdout.split("\n")
            self.assertTrue(out[0].startswith(str(site)), out)
            self.assertEqual(out[1], "(320,)")
            # The installed package reads the prompt templates installed inside it.
            self.assertEqual(out[2], str(site / "probity" / "prompts"))
            self.assertTrue((site / "probity" / "prompts" / "judge_rating.v1.txt").is_file())

    def test_plain_install_leaves_python_alone(self):
        with tempfile.TemporaryDirectory() as stage:
            env = dict(os.environ, DESTDIR=stage)
            subprocess.run(["cmake", "--install", str(BUILD)], env=env, check=True,
                           capture_output=True)
            self.assertFalse(pathlib.Path(stage + install_dir()).exists())


if __name__ == "__main__":
    unittest.main()
