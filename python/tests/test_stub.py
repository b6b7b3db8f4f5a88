"""The type stub shipped with the package covers the public API, and every public function and
class documents itself for help()."""

import ast
import inspect
import pathlib
import unittest

import probity


def public_names():
    names = set(probity.__all__)
    names |= {n for n in dir(probity)
              if not n.startswith("_") and not inspect.ismodule(getattr(probity, n))}
    return names


def stub_entries(tree):
    """Top-level names defined in the stub, and the names defined inside each class."""
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        elif isinstance(node, ast.Assign):
            top |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.ClassDef):
            inner = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    inner.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    inner.add(item.target.id)
            members[node.name] = inner
    return top, members


class Stub(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = pathlib.Path(probity.__file__).with_name("__init__.pyi")
        cls.tree = ast.parse(cls.path.read_text(encoding="utf-8"))
        cls.top, cls.members = stub_entries(cls.tree)

    def test_shipped_with_the_package(self):
        self.assertTrue(self.path.is_file())
        self.assertTrue(self.path.with_name("py.typed").is_file())

    def test_every_public_name_has_an_entry(self):
        missing = sorted(public_names() - self.top - {"annotations"})
        self.assertEqual(missing, [], f"public names without a stub entry in {self.path}")

    def test_every_public_method_has_an_entry(self):
        missing = []
        for name in public_names():
            obj = getattr(probity, name)
            if not inspect.isclass(obj) or issubclass(obj, BaseException):
                continue
            if issubclass(obj, tuple):  # named tuples: their fields
                continue
            own = {n for n, v in vars(obj).items()
                   if not n.startswith("_") and (callable(v) or isinstance(v, (property,
                                                                                staticmethod)))}
            missing += [f"{name}.{n}" for n in own - self.members.get(name, set())]
        self.assertEqual(sorted(missing), [])

    def test_every_public_function_and_class_has_a_docstring(self):
        undocumented = []
        for name in sorted(public_names()):
            obj = getattr(probity, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and not inspect.getdoc(obj):
                undocumented.append(name)
        for fn in (probity.Dataset.from_pandas, probity.Dataset.from_records,
                   probity.Dataset.to_pandas, probity.Scores.to_pandas,
                   probity.AuditReport.to_pandas):
            if not inspect.getdoc(fn):
                undocumented.append(fn.__qualname__)
        self.assertEqual(undocumented, [])


if __name__ == "__main__":
    unittest.main()
