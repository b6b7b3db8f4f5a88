"""The type stub shipped with the package covers the public API, and every public function and
class documents itself for help()."""

import ast
import importlib.util
import inspect
import pathlib
import unittest

import probity

REPO = pathlib.Path(__file__).resolve().parents[2]


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


def stub_parameters(node):
    """(name, kind, has a default) of each parameter of a stub's def, as inspect names kinds."""
    a = node.args
    positional = a.posonlyargs + a.args
    defaults = [False] * (len(positional) - len(a.defaults)) + [True] * len(a.defaults)
    out = [(p.arg, "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD", d)
           for i, (p, d) in enumerate(zip(positional, defaults))]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    out += [(p.arg, "KEYWORD_ONLY", d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out


def runtime_parameters(fn):
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(fn).parameters.values()]


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

    def test_declared_parameters_are_the_functions_parameters(self):
        differ = []
        scopes = [(probity, self.tree.body)]
        scopes += [(getattr(probity, node.name), node.body) for node in self.tree.body
                   if isinstance(node, ast.ClassDef) and hasattr(probity, node.name)]
        for owner, body in scopes:
            for node in body:
                fn = getattr(owner, node.name, None) if isinstance(node, ast.FunctionDef) else None
                if inspect.isfunction(fn) and stub_parameters(node) != runtime_parameters(fn):
                    differ.append(f"{fn.__qualname__}: stub {stub_parameters(node)}, "
                                  f"function {runtime_parameters(fn)}")
        self.assertEqual(differ, [])

    def test_engine_methods_are_generated_from_the_module_functions(self):
        # Compared in the source tree: the build copies the stub, the script writes the source.
        spec = importlib.util.spec_from_file_location(
            "gen_python_stub", REPO / "scripts" / "gen-python-stub.py")
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        package = REPO / "python" / "probity"
        stub = (package / "__init__.pyi").read_text(encoding="utf-8")
        self.assertEqual(
            gen.generate((package / "__init__.py").read_text(encoding="utf-8"), stub), stub,
            "the Engine methods of __init__.pyi are stale: run scripts/gen-python-stub.py")
        self.assertEqual(gen.engine_functions((package / "__init__.py").read_text("utf-8")),
                         [fn.__name__ for fn in probity._ENGINE_FUNCTIONS])

    def test_engine_methods_are_the_module_functions(self):
        self.assertTrue(probity._ENGINE_FUNCTIONS)
        for fn in probity._ENGINE_FUNCTIONS:
            name = fn.__name__
            method, function = getattr(probity.Engine, name), getattr(probity, name)
            self.assertIs(method, fn)
            self.assertEqual(function.__doc__, method.__doc__)
            self.assertEqual(list(inspect.signature(method).parameters)[0], "self")
            self.assertEqual(runtime_parameters(function), runtime_parameters(method)[1:])
            self.assertIn(name, probity.__all__)

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
