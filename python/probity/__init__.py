"""probity: reference-based text evaluation metrics and their audit, from Python.

The functions here run the same C++ engine as the ``probity`` command-line tool and give the
same numbers and the same error messages::

    import probity

    ds = probity.load_dataset("data/summeval/summeval_sample20.jsonl")
    scores = probity.score_dataset(ds, ["bleu", "rougeL", "stmt-tv"])   # name -> array
    rows = probity.correlate(scores, ds)                                 # probity correlate
    report = probity.audit(ds, ["bleu", my_metric], out="out/audit")     # probity audit

Per-item arrays are NumPy float64 arrays aligned with ``Dataset.items()``; undefined values
are NaN. Invalid input raises :class:`InputError` (with ``file``, ``line`` and ``field``), a
bad metric name or option :class:`UsageError`; both are ``ValueError`` subclasses. Long calls
release the GIL and stop with ``KeyboardInterrupt`` on Ctrl-C.

A Python callable can be audited next to the built-in metrics: it receives a batch of
candidates and their references and returns one number per candidate::

    def length(candidates, references):
        return [len(c.split()) for c in candidates]
"""

import collections
import collections.abc
import functools
import inspect
import json
import math
import os
import re
import tempfile
import uuid

import numpy as np

from . import _probity
from ._probity import (
    BatchPending,
    BudgetExceeded,
    Candidate,
    Dataset,
    InputError,
    OutputError,
    Preference,
    Reference,
    SkipRecord,
    Task,
    UsageError,
)

__version__ = _probity.__version__

__all__ = [
    "AttackResult", "AuditReport", "BatchPending", "BootstrapResult", "BudgetExceeded", "Candidate", "CorrelationResult", "Dataset", "InputError", "OutputError",
    "MultipleTestingResult", "PairedTResult", "PermutationResult", "PerturbResult", "Preference",
    "PythonMetric", "Reference", "Scores", "SkipRecord", "Task", "UsageError", "attack", "audit", "benjamini_hochberg", "bleu_from_stats", "bootstrap_correlation", "cache_batches", "cache_export", "cache_import",
    "cache_merge", "cache_stats",
    "cem_ord", "compare", "configure_llm", "corpus_score", "correlate", "correlation",
    "disconnect_llm", "Engine", "format_report", "holm", "llm_usage",
    "kendall_tau_b", "kendall_tau_c", "LevelResult", "level_statistic", "load_dataset", "metrics",
    "paired_t", "paired_test", "pearson", "power", "rank_protocol", "rouge_bootstrap",
    "permutation_correlation_diff", "perturb", "score", "score_dataset", "score_parts",
    "signature", "significance", "spearman", "strategies", "write_report",
]

# Items per call of a Python metric when probity scores a dataset with it.
_BATCH = 256

# Every function that runs on an engine is written once, as `def name(self, ...)` with `self`
# the Engine, and decorated with @_engine_function: it becomes the method Engine.name and, bound
# to the default engine, the module function probity.name (the same docstring; the signature
# without `self`). scripts/gen-python-stub.py writes their Engine entries in __init__.pyi.
_ENGINE_FUNCTIONS = []


def _engine_function(fn):
    _ENGINE_FUNCTIONS.append(fn)

    @functools.wraps(fn)
    def on_default_engine(*args, **kwargs):
        return fn(_default, *args, **kwargs)

    sig = inspect.signature(fn)
    on_default_engine.__signature__ = sig.replace(
        parameters=list(sig.parameters.values())[1:])
    return on_default_engine


# ---- metrics and strategies ----------------------------------------------------------------


def bleu_from_stats(correct, total, sys_len, ref_len, smooth_method="exp", smooth_value=None,
                    effective_order=False):
    """BLEU from raw statistics, as sacreBLEU's BLEU.compute_bleu: n-gram matches and totals per
    order (their length is the maximum order), hypothesis and reference lengths. smooth_method
    is exp, floor, add-k or none; smooth_value defaults to 0.1 (floor) or 1 (add-k). Returns a
    dict with score, bp, precisions, counts, totals, sys_len and ref_len."""
    if smooth_value is None:
        smooth_value = 0.1 if smooth_method == "floor" else 1.0
    if smooth_method not in ("exp", "floor", "add-k", "none"):
        raise UsageError(f"bleu_from_stats: smooth_method={smooth_method!r} is not one of exp, "
                         "floor, add-k, none")
    out = _probity._bleu_from_stats([float(c) for c in correct], [float(t) for t in total],
                                    float(sys_len), float(ref_len), smooth_method,
                                    float(smooth_value), bool(effective_order))
    return {"score": out[0], "bp": out[1], "precisions": list(out[2:]), "counts": list(correct),
            "totals": list(total), "sys_len": sys_len, "ref_len": ref_len}



@_engine_function
def metrics(self):
    """The metric registry, as ``probity metrics --json``.

    Returns:
        list of dict: ``{"name", "description", "options"}`` per metric, in registry order;
        ``options`` lists every option the metric takes as ``{"name", "type"`` (bool, int,
        number, choice, text) ``, "default", "help"}`` with ``"choices"`` or ``"min"``/``"max"``
        where they apply, the table that validates metric names.
        Metrics are named as on the command line: ``base[.part][:arg][,key=value...]``, e.g.
        ``"bleu"``, ``"rougeL.f,stem=true"``, ``"mi:tv/fvar/statement/oracle,k=8"``.
    """
    return self._native.metrics()


@_engine_function
def signature(self, metric):
    """The sacreBLEU-style signature of a metric name (every choice that affects its value).

    Metrics fitted on a dataset (MI metrics) may add dataset-dependent fields once fitted; the
    signatures of :func:`score_dataset` results (``Scores.signatures``) are the exact ones.
    """
    return self._native.signature(metric)


@_engine_function
def strategies(self, kind=None):
    """The degradation and manipulation strategies of the audit.

    Args:
        kind: ``"degradation"``, ``"manipulation"`` or None for both.

    Returns:
        list of dict: ``{"kind", "code", "name", "description"}``, in paper order; with an
        LLM configured (:func:`configure_llm`) the LLM realisations too (``llm-D``, ...).
    """
    out = self._native.strategies()
    if kind is None:
        return out
    kind = _strategy_kind(kind)
    return [s for s in out if s["kind"] == kind]


def _strategy_kind(kind):
    aliases = {"degrade": "degradation", "manipulate": "manipulation"}
    kind = aliases.get(kind, kind)
    if kind not in ("degradation", "manipulation"):
        raise UsageError(
            f"unknown strategy kind '{kind}' (kinds: degradation, manipulation)")
    return kind


class PythonMetric:
    """A Python callable used as a metric, with its name and (optional) signature.

    ``fn(candidates: list[str], references: list[list[str]]) -> sequence of float`` is called
    with batches of up to 256 items and must return one number per candidate (NaN for
    undefined). A function that takes a third argument, or one named ``sources``, is also given
    each item's source (the task's input, ``""`` when it has none), in the audit and the attack.
    Its scores are reported as ``python:<name>``.

    Plain callables given to :func:`audit`, :func:`score_dataset`, :func:`score` are wrapped
    automatically with ``name=fn.__name__``. Without a ``signature`` an audit never reuses
    the cached scores of an earlier run (probity cannot tell whether the function changed);
    give one (e.g. ``"length-v1"``), and change it when the function changes, to make audits of
    the metric resumable.
    """

    def __init__(self, fn, name=None, signature=None):
        if not callable(fn):
            raise TypeError(f"PythonMetric needs a callable, got {type(fn).__name__}")
        self.fn = fn
        if name is None:
            name = getattr(fn, "__name__", None) or type(fn).__name__
        # ',' separates options in metric names; whitespace would make odd record names.
        self.name = re.sub(r"[,\s]", "_", str(name))
        self.signature = signature
        self._takes_sources = _takes_sources(fn)

    @property
    def record_name(self):
        """The name of the metric's scores: ``python:<name>``."""
        return "python:" + self.name

    def full_signature(self, run_id=None):
        """The signature written into reports and used as the audit cache key."""
        if self.signature is not None:
            return f"{self.record_name}|{self.signature}|version:probity-{__version__}"
        fn_name = ".".join(
            str(getattr(self.fn, a, "")) for a in ("__module__", "__qualname__")).strip(".")
        run = run_id or uuid.uuid4().hex[:16]
        return (f"{self.record_name}|fn:{fn_name or type(self.fn).__name__}|run:{run}"
                f"|version:probity-{__version__}")

    def __call__(self, candidates, references, sources=None):
        """Scores one batch; returns a 1-D float64 array with one value per candidate.
        ``sources`` reaches a function that takes them (see the class)."""
        if self._takes_sources:
            if sources is None:
                sources = [""] * len(candidates)
            values = self.fn(candidates, references, sources)
        else:
            values = self.fn(candidates, references)
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 1 or len(values) != len(candidates):
            got = (f"{len(values)} values" if values.ndim == 1
                   else f"an array of {values.ndim} dimensions")
            raise ValueError(f"Python metric '{self.name}' returned {got} for "
                             f"{len(candidates)} candidates (expected one number per candidate)")
        return values

    def __repr__(self):
        return f"PythonMetric({self.fn!r}, name={self.name!r}, signature={self.signature!r})"


def _takes_sources(fn):
    """Whether ``fn`` accepts (candidates, references, sources)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    if "sources" in sig.parameters:
        return True
    try:
        sig.bind([], [], [])
        return True
    except TypeError:
        return False


def _as_python_metric(metric):
    if isinstance(metric, PythonMetric):
        return metric
    if callable(metric):
        return PythonMetric(metric)
    return None


def _metric_list(metrics):
    if isinstance(metrics, (str, PythonMetric)) or callable(metrics):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise UsageError("at least one metric is required")
    out = []
    for m in metrics:
        if isinstance(m, str):
            out.append(m)
        elif _as_python_metric(m) is not None:
            out.append(_as_python_metric(m))
        else:
            raise TypeError(f"a metric is a name or a callable, got {type(m).__name__}")
    names = [m.record_name for m in out if isinstance(m, PythonMetric)]
    for n in names:
        if names.count(n) > 1:
            raise UsageError(f"two metrics are named '{n}': name them with "
                             f"probity.PythonMetric(fn, name=...)")
    return out


def _batched(metric, candidates, references, sources=None):
    if sources is None:
        sources = [""] * len(candidates)
    values = [metric(candidates[i:i + _BATCH], references[i:i + _BATCH], sources[i:i + _BATCH])
              for i in range(0, len(candidates), _BATCH)]
    return np.concatenate(values) if values else np.zeros(0)


# ---- datasets --------------------------------------------------------------------------------


def load_dataset(path, skip_invalid=False, *, format=None, map=None):
    """Loads a dataset file: JSONL (one task per line), CSV or TSV (one row per candidate), a
    JSON array of tasks, or flat rows of any of these through a column map.

    Args:
        path: file name (``str`` or ``os.PathLike``); the format follows the extension
            (``.jsonl``, ``.json``, ``.csv``, ``.tsv``) unless ``format`` names it.
        skip_invalid: skip invalid tasks and candidates instead of raising; what was skipped is
            in ``Dataset.skipped``.
        format: ``"jsonl"``, ``"json"``, ``"csv"`` or ``"tsv"`` (as ``--format``).
        map: a column map as ``--map`` takes it (``"task=doc_id,candidate=prediction,..."`` or
            ``"@mapfile"``): every row is one candidate, unmapped columns are ignored.

    Returns:
        Dataset: ``tasks`` (each with ``task_id``, ``group``, ``source``, ``references``,
        ``candidates`` with ``id``, ``system``, ``text``, ``human``), ``dimensions()``,
        ``num_candidates()``, ``items()`` and ``human(dimension)``.

    Raises:
        InputError: invalid input, with the file, line and field.
    """
    if format is None and map is None:
        return _probity.load_dataset(os.fspath(path), skip_invalid)
    return _probity.load_input(os.fspath(path), format or "auto", map or "", skip_invalid)


def _json_value(v):
    """A cell of a data frame or record as JSON: NaN/None/NA -> None, NumPy scalars -> Python."""
    if v is None:
        return None
    if isinstance(v, (str, bool)):
        return v
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return None if v != v else v
    if isinstance(v, int):
        return v
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_json_value(x) for x in v]
    try:
        import pandas as pd  # optional: only data frames bring pd.NA and NaT
        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:  # pragma: no cover
        pass
    return str(v)


def _column_names(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, collections.abc.Iterable):
        out = list(value)
        if all(isinstance(c, str) for c in out):
            return out
    raise TypeError(f"{what}: a column name or a list of column names")


def _human_columns_map(human):
    if human is None:
        return []
    if isinstance(human, collections.abc.Mapping):
        return [(str(dim), str(col)) for dim, col in human.items()]
    return [(c, c) for c in _column_names(human, "human")]


def _from_records(records, *, task, candidate, reference, human, system, candidate_id, source,
                  group, name, skip_invalid):
    references = _column_names(reference, "reference")
    human_map = _human_columns_map(human)
    columns = [c for c in (task, candidate, candidate_id, system, source, group) if c]
    columns += references + [col for _, col in human_map]
    lines = []
    for record in records:
        if not isinstance(record, collections.abc.Mapping):
            raise TypeError(f"records must be mappings (dicts), got {type(record).__name__}")
        lines.append(json.dumps({c: _json_value(record[c]) for c in columns if c in record},
                                ensure_ascii=False, allow_nan=False))
    return _probity.parse_records("\n".join(lines) + "\n", name, task or "", candidate,
                                  candidate_id or "", system or "", source or "", group or "",
                                  references, human_map, skip_invalid)


def _dataset_from_records(records, task=None, candidate="candidate", reference=None, human=None,
                          system=None, candidate_id=None, source=None, group=None,
                          name="<records>", skip_invalid=False):
    """Builds a Dataset from flat records (dicts), one candidate per record.

    Args:
        records: an iterable of dicts (Hugging Face ``datasets`` rows, JSON objects, ...).
        task: key of the task id; records that share it are one task. None: every record is
            its own task, its id its 1-based position.
        candidate: key of the candidate text.
        reference: key (or list of keys) of the reference text(s); a value may be a string or
            a list of strings.
        human: key(s) of human ratings: a name, a list of names (each a dimension of that
            name) or a dict ``{dimension: key}``; a value may be a number, a list of annotator
            numbers, or None/NaN (not rated).
        system: key of the system name.
        candidate_id: key of the candidate id. None: the system name, else ``c1``, ``c2``, ...
            within the task.
        source, group: keys of the task's source text and group.
        name: stands for the file in error messages (the "line" of an error is the record's
            1-based position).
        skip_invalid: skip invalid records instead of raising (listed in ``Dataset.skipped``).

    Other keys are ignored. Raises InputError naming the record and key of bad input.
    """
    return _from_records(records, task=task, candidate=candidate, reference=reference,
                         human=human, system=system, candidate_id=candidate_id, source=source,
                         group=group, name=name, skip_invalid=skip_invalid)


def _dataset_from_pandas(df, task=None, candidate="candidate", reference=None, human=None,
                         system=None, candidate_id=None, source=None, group=None,
                         name="<DataFrame>", skip_invalid=False):
    """Builds a Dataset from a pandas DataFrame, one candidate per row.

    The arguments name columns as :meth:`Dataset.from_records` names keys; columns not named
    are ignored. Rows that share a ``task`` value are one task (their references must agree).
    Errors name the row by its 1-based position as the "line" and the column as the field::

        ds = probity.Dataset.from_pandas(df, task="doc_id", candidate="prediction",
                                         reference="ref", human=["score"], system="model")
    """
    missing = [c for c in [task, candidate, candidate_id, system, source, group]
               + _column_names(reference, "reference")
               + [col for _, col in _human_columns_map(human)] if c and c not in df.columns]
    if missing:
        raise UsageError(f"{name}: no column(s) {', '.join(map(repr, missing))} "
                         f"(columns: {', '.join(map(str, df.columns))})")
    return _from_records(df.to_dict("records"), task=task, candidate=candidate,
                         reference=reference, human=human, system=system,
                         candidate_id=candidate_id, source=source, group=group, name=name,
                         skip_invalid=skip_invalid)


def _dataset_to_pandas(self):
    """One row per candidate: task_id, candidate_id, system, candidate, group, source,
    reference (or reference_1, reference_2, ... when a task has several) and ``human:<dim>``
    (the annotator mean; NaN where unrated), in item order. Needs pandas."""
    import pandas as pd
    nrefs = max((len(t.references) for t in self.tasks), default=0)
    dims = self.dimensions()
    rows = []
    for t in self.tasks:
        for c in t.candidates:
            row = {"task_id": t.task_id, "candidate_id": c.id, "system": c.system,
                   "candidate": c.text, "group": t.group, "source": t.source}
            if nrefs == 1:
                row["reference"] = t.references[0].text if t.references else None
            else:
                for k in range(nrefs):
                    row[f"reference_{k + 1}"] = (t.references[k].text if k < len(t.references)
                                                 else None)
            for d in dims:
                row[f"human:{d}"] = c.human_mean(d)
            rows.append(row)
    return pd.DataFrame(rows)


# The conventions of a data frame given to score_dataset or audit directly (the CSV importer's
# names): task_id, candidate_id, candidate, reference or reference_<k>, system, source, group,
# and human:<dimension> rating columns.
def _default_frame_dataset(df, what):
    cols = [str(c) for c in df.columns]
    text = next((c for c in ("candidate", "candidate_text", "text") if c in cols), None)
    if text is None:
        raise TypeError(
            f"{what} got a DataFrame without a 'candidate' column (columns: {', '.join(cols)}); "
            "say which columns hold what: probity.Dataset.from_pandas(df, task=..., "
            "candidate=..., reference=..., human=[...], system=...)")
    refs = (["reference"] if "reference" in cols else
            sorted((c for c in cols if re.fullmatch(r"reference_\d+", c)),
                   key=lambda c: int(c.split("_")[1])))
    pick = lambda *names: next((c for c in names if c in cols), None)  # noqa: E731
    return _dataset_from_pandas(
        df, task=pick("task_id"), candidate=text, reference=refs,
        human={c[6:]: c for c in cols if c.startswith("human:")},
        system=pick("system"), candidate_id=pick("candidate_id", "id"), source=pick("source"),
        group=pick("group"))


def _is_frame(data):
    return type(data).__name__ == "DataFrame" and hasattr(data, "to_dict")


Dataset.from_records = staticmethod(_dataset_from_records)
Dataset.from_pandas = staticmethod(_dataset_from_pandas)
Dataset.to_pandas = _dataset_to_pandas


def _dataset(data, what="score_dataset"):
    if isinstance(data, Dataset):
        return data
    if _is_frame(data):
        return _default_frame_dataset(data, what)
    if isinstance(data, (str, os.PathLike)):
        return load_dataset(data)
    raise TypeError(f"{what}: expected a Dataset, a pandas DataFrame or a file name, got "
                    f"{type(data).__name__} (build one with probity.Dataset.from_pandas or "
                    "probity.Dataset.from_records)")


# ---- scoring ---------------------------------------------------------------------------------


class Scores(dict):
    """Per-item scores: record name -> NumPy array aligned with the dataset's items.

    A ``dict`` whose ``signatures`` attribute maps each record name to its metric's signature.
    """

    def __init__(self, *args, signatures=None, items=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.signatures = dict(signatures or {})
        # (task_id, candidate_id) of every item, when the scores came from score_dataset.
        self.item_ids = list(items) if items is not None else None
        # score_dataset of a file name: record name -> corpus score over all items (pooled),
        # and per system (when the candidates have several) system -> {record name: score}.
        self.corpus = None
        self.corpus_by_system = None

    def to_pandas(self):
        """A DataFrame with one row per item: ``task_id`` and ``candidate_id`` (when the
        scores came from :func:`score_dataset`), then one column per record name. Needs
        pandas."""
        import pandas as pd
        frame = pd.DataFrame({name: np.asarray(values, dtype=float)
                              for name, values in dict.items(self)})
        if self.item_ids is not None:
            frame.insert(0, "task_id", [t for t, _ in self.item_ids])
            frame.insert(1, "candidate_id", [c for _, c in self.item_ids])
        return frame


@_engine_function
def score_dataset(self, dataset, metrics, threads=0, progress=None):
    """Scores every candidate of a dataset, as ``probity score``.

    Args:
        dataset: a :class:`Dataset` (from a file, ``Dataset.from_pandas`` or
            ``Dataset.from_records``), a file name, or a pandas DataFrame with the default
            column names (``task_id``, ``candidate_id``, ``candidate``, ``reference`` or
            ``reference_<k>``, ``system``, ``human:<dimension>``).
        metrics: metric names (``"bleu"``, ``"rougeL"``, ``"gem"``, ...) and/or Python callables
            (see :class:`PythonMetric`); one name or a list.
        threads: worker threads (0: all cores).
        progress: optional ``progress(done, total)`` called between chunks of items (for a
            file name, total is the items read so far).

    A file name with metric names only is read as ``probity score`` reads it: a task-format
    JSONL file in chunks (metrics that need the whole file fitted in passes over it first), so
    that a large file need not fit in memory; the result then also carries the corpus scores
    (``Scores.corpus``, and ``Scores.corpus_by_system`` when the candidates have several
    systems).

    Returns:
        Scores: record name -> float64 array aligned with ``dataset.items()``, one entry per
        score record of ``probity score`` (``"rougeL"`` gives ``rougeL.p``, ``rougeL.r`` and
        ``rougeL.f``); NaN where the CLI writes ``"score": null``.
    """
    return _score_dataset(self._native, dataset, metrics, threads, progress)


def _score_dataset(native, dataset, metrics, threads, progress):
    metrics = _metric_list(metrics)
    if isinstance(dataset, (str, os.PathLike)) and all(isinstance(m, str) for m in metrics):
        # A file is read as ``probity score`` reads it: a task-format JSONL file in chunks.
        items, built, corpus = native.score_file(os.fspath(dataset), metrics, threads, False,
                                                 progress)
        out = Scores(items=items)
        for records in built:
            for record, sig, values in records:
                out[record] = values
                out.signatures[record] = sig
        out.corpus = corpus["pooled"]
        out.corpus_by_system = corpus["systems"]
        return out
    ds = _dataset(dataset)
    names = [m for m in metrics if isinstance(m, str)]
    built = iter(native.score_dataset(ds, names, threads, progress) if names else [])
    out = Scores(items=ds.items())
    texts = refs = sources = None
    for m in metrics:
        if isinstance(m, str):
            for record, sig, values in next(built):
                out[record] = values
                out.signatures[record] = sig
        else:
            if texts is None:
                texts, refs = ds.texts(), ds.references()
                # In the order of ds.items(): the candidates of each task in turn.
                sources = [t.source for t in ds.tasks for _ in t.candidates]
            out[m.record_name] = _batched(m, texts, refs, sources)
            out.signatures[m.record_name] = m.full_signature()
    return out


def _references(references, n):
    if isinstance(references, str):
        raise TypeError("references must be a list with one entry per candidate")
    out = [[r] if isinstance(r, str) else list(r) for r in references]
    if len(out) != n:
        raise UsageError(f"references: {len(out)} entries for {n} candidates")
    return out


def _score_texts(native, metric, candidates, references, sources, negatives, threads):
    if isinstance(candidates, str):
        raise TypeError("candidates must be a list of strings")
    candidates = candidates if isinstance(candidates, list) else list(candidates)
    pm = _as_python_metric(metric)
    if pm is not None:
        references = _references(references, len(candidates))
        values = _batched(pm, candidates, references,
                          None if sources is None else list(sources))
        return {"names": [pm.record_name], "values": [values], "primary": 0,
                "corpus": [float(np.mean(values)) if len(values) else float("nan")],
                "signature": pm.full_signature()}
    # The native call reads each entry of references as one text or a sequence of texts.
    if isinstance(references, str):
        raise TypeError("references must be a list with one entry per candidate")
    references = references if isinstance(references, list) else list(references)
    return native.score_texts(
        metric, candidates, references,
        None if sources is None else list(sources),
        None if negatives is None else [list(n) for n in negatives], threads)


@_engine_function
def score(self, metric, candidates, references, *, sources=None, negatives=None, threads=0):
    """Sentence-level scores of candidates against their references.

    Args:
        metric: a metric name as on the command line (``"bleu"``, ``"chrf"``, ``"rougeL.f"``,
            ``"gem"``...) or a Python callable.
        candidates: list of candidate texts.
        references: one entry per candidate: a reference text or a list of reference texts.
        sources: optional task input per candidate (used by some metrics).
        negatives: optional list of negative references per candidate for contrastive (MI
            f-variational) metrics; by default they are sampled from the other candidates'
            references, as for a dataset.
        threads: worker threads (0: all cores).

    Candidates with the same source and references form one task, as in a dataset file; metrics
    that are fitted on the data (MI metrics) are fitted on these tasks.

    Returns:
        numpy.ndarray: the primary part of the metric per candidate (``rougeL`` -> F), NaN where
        undefined.
    """
    r = _score_texts(self._native, metric, candidates, references, sources, negatives, threads)
    return r["values"][r["primary"]]


@_engine_function
def score_parts(self, metric, candidates, references, *, sources=None, negatives=None,
                threads=0):
    """Like :func:`score`, with every selected part: record name -> array.

    ``score_parts("rougeL", ...)`` returns ``{"rougeL.p": ..., "rougeL.r": ..., "rougeL.f": ...}``;
    single-valued metrics give one entry named after the metric (``{"bleu": ...}``).
    """
    r = _score_texts(self._native, metric, candidates, references, sources, negatives, threads)
    return dict(zip(r["names"], r["values"]))


@_engine_function
def corpus_score(self, metric, candidates, references, *, sources=None, negatives=None,
                 threads=0):
    """Corpus-level score of the primary part, as the summary of ``probity score``.

    BLEU and chrF are computed from the summed statistics (sacreBLEU's corpus_bleu); ROUGE, MI
    metrics and Python callables are the mean of the sentence scores.
    """
    r = _score_texts(self._native, metric, candidates, references, sources, negatives, threads)
    return r["corpus"][r["primary"]]


@_engine_function
def paired_test(self, systems, references, *, metrics=("bleu",), test="bs", samples=0,
                seed=12345, threads=0):
    """Paired significance tests between systems, as sacreBLEU 2.6.0's ``--paired-bs`` and
    ``--paired-ar`` compute them (the same numbers: the same NumPy stream, float32 resamples).

    Args:
        systems: a list of systems, each a list of candidate texts (the same items in the same
            order); the first is the baseline.
        references: one entry per item: a reference text or a list of reference texts.
        metrics: metric names with options: ``bleu``, ``chrf``, ``chrf++`` or ``ter`` (sacreBLEU's
            numbers), or any other metric (its summed statistics or the mean of its item scores,
            of its primary part) that is not fitted on the data: each system's texts are scored
            on their own here; :func:`significance` scores a dataset's systems together.
        test: ``"bs"`` (paired bootstrap resampling) or ``"ar"`` (approximate randomization).
        samples: resamples (bs) or trials (ar); 0: sacreBLEU's defaults, 1000 and 10000.
        seed: sacreBLEU's ``SACREBLEU_SEED`` (default 12345).
        threads: worker threads (0: all cores); the results do not depend on them.

    Returns:
        dict: metric name -> ``{"signature", "samples", "aggregation", "systems"}``, ``systems``
        one dict per system (``score``, ``p_value``, ``mean``, ``ci``; ``None`` where the test
        gives none: the baseline's p-value, the means and CIs of ``ar``).
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    systems = [list(s) for s in systems]
    if len(systems) < 2:
        raise UsageError("paired_test: a baseline and at least one other system are needed")
    out = {}
    for metric in metrics:
        stats = [_score_texts(self._native, metric, s, references, None, None,
                              threads)["stats"].ravel() for s in systems]
        out[metric] = self._native.paired_test(metric, stats, test, samples, seed, threads)
    return out


@_engine_function
def significance(self, data, metrics=None, *, test=None, samples=None, seed=None, baseline=None,
                 clusters=None, correction=None, alpha=None, threads=None, skip_invalid=False):
    """Paired significance tests between the systems of a dataset, for any metric, as
    ``probity significance --json``: sacreBLEU's paired bootstrap (``test="bs"``) or approximate
    randomization (``"ar"``, the default) over each metric's corpus aggregation (sacreBLEU's own
    scoring for bleu, chrf, chrf++ and ter, the same numbers as sacreBLEU; summed statistics or
    the mean of the item scores for any other metric), each system against the baseline and,
    with more than two systems, every pair ranked into significance clusters.

    Args:
        data: a dataset file or a :class:`Dataset` whose tasks each have one candidate per
            system (the candidates' ``system``, else their id).
        metrics: metric names (``"rougeL.f"``, ``"bertscore"``, ``"scores:FILE,data=..."``, an
            ``llm-judge`` through :func:`configure_llm`); default ``["bleu"]``.
        test: ``"ar"`` or ``"bs"``. samples: trials or resamples (0: 10000 for ar, 1000 for
            bs). seed: NumPy's ``default_rng`` seed, as sacreBLEU's ``SACREBLEU_SEED`` (12345).
        baseline: the baseline system (default: the first).
        clusters: test every pair and rank the systems into clusters (None: with more than two
            systems). correction: ``"holm"`` (default), ``"bh"`` or ``"none"`` over the pairs.
            alpha: the clusters' significance level (0.05).
        threads: worker threads (0: all cores); the results do not depend on them.

    Returns:
        dict: ``data``, ``test``, ``samples``, ``seed``, ``items``, ``baseline``, ``systems``
        (the order of the matrices), ``clusters``, ``correction``, ``alpha``, ``warnings`` and
        per metric (``metrics[i]``) its ``metric`` name, ``spec``, ``signature``,
        ``aggregation`` (``sacrebleu``, ``stats`` or ``mean``), ``higher_is_better``,
        ``systems`` (per system ``score``, ``p_value`` against the baseline, bootstrap ``mean``
        and ``ci``) and ``clusters`` (``ranking``: ``system``, ``rank``, ``score`` best first;
        ``p`` and ``p_adjusted``: the pairwise p-values, ``None`` on the diagonal), or ``None``.
    """
    inputs = _inputs(data)
    if len(inputs) != 1:
        raise UsageError("significance takes one dataset")
    given = {"metrics": None if metrics is None else _names(metrics, ()), "test": test,
             "samples": samples, "seed": seed, "baseline": baseline, "clusters": clusters,
             "correction": correction, "alpha": alpha, "threads": threads}
    return self._native.significance(inputs[0], skip_invalid=skip_invalid,
                                     **{k: v for k, v in given.items() if v is not None})


@_engine_function
def rouge_bootstrap(self, candidates, references, *,
                    types=("rouge1", "rouge2", "rougeL", "rougeLsum"), n_samples=1000,
                    confidence_interval=0.95, seed=0, threads=0):
    """rouge-score's ``scoring.BootstrapAggregator`` over the candidates' ROUGE scores.

    rouge-score resamples with NumPy's global random state; this is the aggregator run after
    ``numpy.random.seed(seed)`` (the same numbers), one stream through ``types`` in order.

    Args:
        candidates: list of candidate texts.
        references: one entry per candidate: a reference text or a list of reference texts.
        types: ROUGE metric names, with options (``"rougeL,stem=true"``), in the order the
            aggregator sees them.
        n_samples, confidence_interval: as ``BootstrapAggregator`` (1000, 0.95).
        seed: the seed given to ``numpy.random.seed`` before ``aggregate()`` (0 .. 2**32 - 1).
        threads: worker threads for the scores.

    Returns:
        dict: type -> ``{"low", "mid", "high"}``, each ``{"precision", "recall", "fmeasure"}``.
    """
    if isinstance(types, str):
        types = [types]
    matrices = []
    for t in types:
        if not t.startswith("rouge"):
            raise UsageError(f"rouge_bootstrap: {t!r} is not a ROUGE metric")
        r = _score_texts(self._native, t, candidates, references, None, None, threads)
        if len(r["values"]) != 3:
            raise UsageError(f"rouge_bootstrap: {t!r} must name all three parts (no .p/.r/.f)")
        matrices.append(np.column_stack(r["values"]))  # the parts in order p, r, f
    bounds = _stats.rouge_bootstrap_aggregate(matrices, n_samples, confidence_interval, seed)
    names = ("precision", "recall", "fmeasure")
    return {t: {k: dict(zip(names, map(float, v))) for k, v in zip(("low", "mid", "high"), b)}
            for t, b in zip(types, bounds)}


PerturbResult = collections.namedtuple("PerturbResult", "status text note")
PerturbResult.__doc__ = """One perturbed candidate: status ("applied", "not_applicable",
"unchanged" or "failed"), the perturbed text (when applied) and a note on why not."""


@_engine_function
def perturb(self, dataset, kind, code, seed=0, threads=0):
    """Applies one degradation or manipulation strategy to every candidate of a dataset.

    Args:
        dataset: a :class:`Dataset` (from a file, ``Dataset.from_pandas`` or
            ``Dataset.from_records``), a file name, or a pandas DataFrame with the default
            column names (``task_id``, ``candidate_id``, ``candidate``, ``reference`` or
            ``reference_<k>``, ``system``, ``human:<dimension>``).
        kind: ``"degradation"`` or ``"manipulation"``.
        code: letter code (``"R"``, ``"S"``, ...) or name of the strategy, or an LLM realisation
            (``"llm:D"``, ``"llm:D@v1"``; needs :func:`configure_llm`); see :func:`strategies`.
        seed: run seed; per-item seeds derive from it as in ``probity audit --seed``.
        threads: worker threads (0: all cores).

    Returns:
        list of PerturbResult: ``(status, text, note)`` aligned with ``dataset.items()``.
    """
    ds = _dataset(dataset)
    return [PerturbResult(*r) for r in self._native.perturb(ds, kind, code, seed, threads)]


# ---- statistics ------------------------------------------------------------------------------

_stats = _probity.stats

CorrelationResult = collections.namedtuple("CorrelationResult", "statistic pvalue")
CorrelationResult.__doc__ = "A correlation and its two-sided p-value (NaN if undefined)."

PairedTResult = collections.namedtuple(
    "PairedTResult",
    "n mean_delta sd_delta t df p_two_sided p_less p_greater smd smd_ci_half_width")
PairedTResult.__doc__ = """Paired t-test of perturbed - original (SciPy ttest_rel) with the
standardized mean difference and the half-width of its analytic 95% CI."""

MultipleTestingResult = collections.namedtuple("MultipleTestingResult", "adjusted reject")
MultipleTestingResult.__doc__ = "Adjusted p-values (NaN where p is NaN) and rejections at alpha."

BootstrapResult = collections.namedtuple(
    "BootstrapResult", "estimate ci_low ci_high standard_error undefined distribution")
BootstrapResult.__doc__ = """A statistic with its bootstrap confidence interval; `undefined`
resamples (NaN statistic) are left out of the interval; `distribution[b]` is resample b."""

PermutationResult = collections.namedtuple("PermutationResult", "delta p extreme permutations")
PermutationResult.__doc__ = """Observed difference, p-value, number of permutations at least as
extreme, and number of permutations with a defined statistic."""


def pearson(x, y):
    """Pearson r with SciPy's pearsonr p-value. Returns CorrelationResult(statistic, pvalue)."""
    return CorrelationResult(*_stats.pearson(x, y))


def spearman(x, y):
    """Spearman rho with SciPy's spearmanr p-value. Returns CorrelationResult."""
    return CorrelationResult(*_stats.spearman(x, y))


def kendall_tau_b(x, y):
    """Kendall tau-b with SciPy's kendalltau p-value (exact or normal). Returns
    CorrelationResult."""
    return CorrelationResult(*_stats.kendall_tau_b(x, y))


def kendall_tau_c(x, y):
    """Kendall tau-c (p-value as tau-b). Returns CorrelationResult."""
    return CorrelationResult(*_stats.kendall_tau_c(x, y))


def correlation(x, y, type="spearman"):
    """A correlation by name: pearson, spearman, kendall (= kendall_b) or kendall_c."""
    return CorrelationResult(*_stats.correlation(type, x, y))


LevelResult = collections.namedtuple("LevelResult", "value n groups skipped epsilon")
LevelResult.__doc__ = (
    "A statistic at a meta-evaluation level: its value (NaN if undefined), the candidates (or "
    "systems) used, the tasks averaged and skipped (task level), acc-eq's tie threshold.")


def level_statistic(gold, metric, task, *, level="item", statistic="pearson", system=None):
    """A statistic at a level, as `probity correlate --level --statistic` computes it
    (docs/meta-eval.md; mt-metrics-eval's conventions).

    gold, metric: one human and one metric score per candidate (NaN or None: left out).
    task: the task index of each candidate (0-based); system: its system index, or None for all
    when no system is known. level: "item", "task" or "system". statistic: "pearson",
    "spearman", "kendall", "kendall-c", "pairwise-acc" or "acc-eq". Returns LevelResult.
    """
    gold = [float("nan") if g is None else g for g in gold]
    metric = [float("nan") if m is None else m for m in metric]
    return LevelResult(*_stats.level_statistic(statistic, level, gold, metric, list(task),
                                               [] if system is None else list(system)))


def paired_t(perturbed, original):
    """Paired t-test of perturbed against original scores, with the standardized mean
    difference. Returns PairedTResult; NaN fields where undefined."""
    return PairedTResult(*_stats.paired_t(perturbed, original))


def holm(p, alpha=0.05):
    """Holm's step-down adjustment (statsmodels multipletests "holm"). NaN p-values are left out
    and never rejected. Returns MultipleTestingResult(adjusted, reject)."""
    return MultipleTestingResult(*_stats.holm(p, alpha))


def benjamini_hochberg(p, alpha=0.05):
    """Benjamini-Hochberg FDR adjustment (statsmodels "fdr_bh"). Returns
    MultipleTestingResult(adjusted, reject)."""
    return MultipleTestingResult(*_stats.benjamini_hochberg(p, alpha))


def cem_ord(pred, gold, levels):
    """CEM-ORD (Amigo et al. 2020) of ordinal predictions against gold classes `levels`."""
    return _stats.cem_ord(pred, gold, levels)


def _cluster_ids(clusters, n):
    if clusters is None:
        return []
    ids = {}
    out = [ids.setdefault(c, len(ids)) for c in clusters]
    if len(out) != n:
        raise UsageError(f"bootstrap: {len(out)} cluster labels for {n} items")
    return out


def bootstrap_correlation(x, y, correlation="spearman", *, resamples=1000, confidence=0.95,
                          method="percentile", seed=0, threads=0, clusters=None):
    """A correlation with a bootstrap confidence interval (pairs resampled together).

    Args:
        correlation: pearson, spearman, kendall or kendall_c.
        method: ``"percentile"`` or ``"bca"`` (SciPy 1.10 conventions).
        clusters: optional label per item (any hashable, e.g. system or task id): whole
            clusters are resampled.

    Returns:
        BootstrapResult(estimate, ci_low, ci_high, standard_error, undefined, distribution).
    """
    x = np.asarray(x, dtype=np.float64)
    r = _stats.bootstrap_correlation(x, y, correlation, resamples, confidence, method, seed,
                                     threads, _cluster_ids(clusters, len(x)))
    return BootstrapResult(*r)


def permutation_correlation_diff(a, b, human, correlation="spearman", *, permutations=1000,
                                 alternative="two-sided", seed=0, threads=0, add_one=False,
                                 standardize=True):
    """Paired permutation test of corr(a, human) - corr(b, human) (mt-metrics-eval style).

    Each permutation swaps a_i and b_i with probability 1/2 (after z-scoring both when
    ``standardize``). ``alternative``: two-sided, greater or less. Returns
    PermutationResult(delta, p, extreme, permutations).
    """
    return PermutationResult(*_stats.permutation_correlation_diff(
        a, b, human, correlation, permutations, alternative, seed, threads, add_one,
        standardize))


# ---- meta-evaluation -------------------------------------------------------------------------


def _score_columns(scores):
    if isinstance(scores, collections.abc.Mapping):
        columns = {k: np.asarray(v, dtype=np.float64) for k, v in scores.items()}
        signatures = getattr(scores, "signatures", {})
    else:
        columns = {"score": np.asarray(scores, dtype=np.float64)}
        signatures = {}
    if not columns:
        raise UsageError("no scores")
    return columns, signatures


def _human_columns(human, dimensions):
    """(dimension names, list of arrays) from a Dataset, a mapping or one array."""
    if isinstance(human, Dataset):
        available = human.dimensions()
        if dimensions is None:
            dims = available
        else:
            dims = list(dimensions)
            for d in dims:
                if d not in available:
                    raise UsageError(f"dimension '{d}' is not in '{human.path}' "
                                     f"(dimensions: {', '.join(available)})")
        if not dims:
            raise UsageError(f"'{human.path}' has no human ratings")
        return dims, [human.human(d) for d in dims]
    if isinstance(human, collections.abc.Mapping):
        dims = list(human) if dimensions is None else list(dimensions)
        for d in dims:
            if d not in human:
                raise UsageError(f"dimension '{d}' is not in the human ratings "
                                 f"(dimensions: {', '.join(human)})")
        return dims, [np.asarray(human[d], dtype=np.float64) for d in dims]
    return ["human"], [np.asarray(human, dtype=np.float64)]


def correlate(scores, human, *, dimensions=None, bootstrap=1000, confidence=0.95, seed=0,
              threads=0, level=None, statistic=None, baselines=True, resample="level"):
    """Correlation of metric scores with human ratings, as ``probity correlate --json``.

    Args:
        scores: :func:`score_dataset` output (name -> array), any mapping of arrays, or one
            array.
        human: the :class:`Dataset` the scores are aligned with (annotator means of each
            dimension), a mapping dimension -> array, or one array.
        dimensions: only these dimensions (default: all).
        bootstrap: resamples for the Spearman CI (0: none).

    Returns:
        level, statistic: a level name ("item", "task", "system") or a list of them, and a
            statistic name ("pearson", "spearman", "kendall", "kendall-c", "pairwise-acc",
            "acc-eq") or a list, as ``probity correlate --level --statistic``; ``human`` must then
            be the :class:`Dataset` (its tasks and systems). Either one alone takes the other's
            default (item level; pearson, spearman and kendall).
        baselines: with levels, the ``baseline:length`` and ``baseline:random`` rows too.
        resample: with levels, the bootstrap unit: "level", "tasks", "systems" or "both".

    Returns:
        list of dict: per metric and dimension (plus a ``"mean"`` row when there are several),
        after the ``"humans"`` rows (``humans: True``; when ``human`` is a :class:`Dataset` with
        several ratings per item: each rater against the mean of the others, averaged), the
        ``results`` rows of ``probity correlate --json``: metric, dimension, n, spearman,
        spearman_lo, spearman_hi, spearman_p, kendall, pearson, signature (the names of
        report.json, docs/json-fields.md). NaN where the CLI writes null. With levels, the rows
        of ``probity correlate --level --json``: metric, baseline, dimension, level, statistic,
        value, ci_lo, ci_hi, resampled, n, groups,
        skipped_groups, signature (and epsilon for acc-eq).
    """
    if level is not None or statistic is not None:
        return _level_correlate(scores, human, dimensions, level, statistic, bootstrap,
                                confidence, seed, threads, baselines, resample)
    columns, signatures = _score_columns(scores)
    dims, human_cols = _human_columns(human, dimensions)
    out = []
    # The human ceiling first, when the Dataset has several ratings per item.
    ceiling = (_stats.human_ceiling(human, dims, [], [], bootstrap, confidence, seed, threads)
               if isinstance(human, Dataset) else None)
    if ceiling is not None:
        for dim, n, rho, lo, hi, p, tau, r in ceiling[0]:
            out.append({"metric": "humans", "dimension": dim, "n": n, "spearman": rho,
                        "spearman_lo": lo, "spearman_hi": hi, "spearman_p": p, "kendall": tau,
                        "pearson": r, "humans": True})
    for name, values in columns.items():
        rows = _stats.human_correlations(values, human_cols, dims, bootstrap, confidence, seed,
                                         threads)
        for dim, n, rho, lo, hi, p, tau, r in rows:
            out.append({"metric": name, "dimension": dim, "n": n, "spearman": rho,
                        "spearman_lo": lo, "spearman_hi": hi, "spearman_p": p, "kendall": tau,
                        "pearson": r, "signature": signatures.get(name, "")})
    return out


def _names(value, default):
    if value is None:
        return list(default)
    return [value] if isinstance(value, str) else list(value)


def _level_correlate(scores, human, dimensions, level, statistic, bootstrap, confidence, seed,
                     threads, baselines, resample):
    if not isinstance(human, Dataset):
        raise UsageError("correlate with level/statistic needs the Dataset as `human` "
                         "(its tasks and systems)")
    levels = _names(level, ["item"])
    statistics = _names(statistic, ["pearson", "spearman", "kendall"])
    dims, _ = _human_columns(human, dimensions)
    columns, signatures = _score_columns(scores)
    columns = [(name, values, signatures.get(name, ""), False) for name, values in columns.items()]
    if baselines:
        columns += [(name, values, sig, True) for name, sig, values in _stats.baselines(human)]
    out = []
    ceiling = _stats.human_ceiling(human, dims, levels, statistics, bootstrap, confidence, seed,
                                   threads)
    if ceiling is not None:
        for dim, lv, st, value, n, groups, skipped in ceiling[1]:
            out.append({"metric": "humans", "baseline": False, "humans": True, "dimension": dim,
                        "level": lv, "statistic": st, "value": value, "ci_lo": math.nan,
                        "ci_hi": math.nan, "resampled": "none", "n": n, "groups": groups,
                        "skipped_groups": skipped})
    for name, values, sig, is_baseline in columns:
        rows = _stats.level_correlations(human, values, dims, levels, statistics, bootstrap,
                                         confidence, seed, threads, resample)
        for dim, lv, st, value, lo, hi, unit, n, groups, skipped, epsilon in rows:
            row = {"metric": name, "baseline": is_baseline, "dimension": dim, "level": lv,
                   "statistic": st, "value": value, "ci_lo": lo, "ci_hi": hi, "resampled": unit, "n": n,
                   "groups": groups, "skipped_groups": skipped, "signature": sig}
            if st == "acc-eq":
                row["epsilon"] = epsilon
            out.append(row)
    return out


def rank_protocol(protocol, mtme, *, lps=None, primary=None, all_metrics=False,
                  permutations=None, seed=None, alpha=None, threads=None, mqm_weights=None,
                  mqm_ratings=None, probity_coins=False):
    """A WMT meta-evaluation protocol over the metric scores stored in an mt-metrics-eval test
    set, as ``probity rank --protocol P --mtme DIR --json`` (docs/meta-eval.md, "WMT's
    protocols"): per language pair soft pairwise accuracy at the system level and tie-calibrated
    accuracy grouped by segment, clusters on raw p-values, the weighted average, the average rank
    and clusters of the average, equal to mt-metrics-eval's ``tasks.WMT24()`` run.

    Args:
        protocol: ``"wmt24"`` or ``"wmt25"``.
        mtme: the test-set directory (e.g. ``mt-metrics-eval-v2/wmt24``) with
            ``metric-scores/<lp>/NAME-REF.seg.score`` files (put your metric's there).
        lps: language pairs (default: the protocol's).
        primary: metric basenames to count as primary submissions (yours).
        all_metrics: rank contrastive submissions too.
        permutations: per pair of metrics and task (1000; 0: no significance, no clusters).
        seed: the tests' seed (0). alpha: the clusters' level (0.05). threads: 0 = all cores.
        mqm_weights: the gold from the MQM error spans, weighted as score_mqm.py ``--weights``
            (``"major:5 minor:1 ..."`` or ``"default"``); mqm_ratings: the rating set's name.
        probity_coins: draw the tests' coins from probity's generator (much faster; other
            draws than mt-metrics-eval's NumPy stream).

    Returns:
        dict: ``protocol``, ``lps``, ``conventions``, ``average`` (metric, status, value, rank,
        average_rank), ``average_tests`` and ``tasks`` (lp, level, statistic, human, weight,
        systems, segments, metrics with value and rank, tests with p).
    """
    request = _probity.WmtRankRequest()
    request.protocol = protocol
    request.test_set_dir = os.fspath(mtme)
    if lps is not None:
        request.lps = [lps] if isinstance(lps, str) else list(lps)
    if primary is not None:
        request.extra = [primary] if isinstance(primary, str) else list(primary)
    request.primary_only = not all_metrics
    if permutations is not None:
        request.permutations = permutations
    if seed is not None:
        request.seed = seed
    if alpha is not None:
        request.alpha = alpha
    if threads is not None:
        request.threads = threads
    if mqm_weights is not None:
        request.mqm_weights = mqm_weights
    if mqm_ratings is not None:
        request.mqm_ratings = mqm_ratings
    request.mtme_stream = not probity_coins
    return _probity.wmt_rank(request)


def power(*, effect=None, n=None, power=None, alpha=0.05, alternative="greater", sd_delta=None,
          pooled_sd=None, correlation=None, report=None):
    """Sample sizes, detectable effects and power, as ``probity power --json``.

    Args:
        effect: the effect to detect: the audit's d with ``sd_delta`` and ``pooled_sd`` (or a
            ``report``), else mean / sd of the paired differences.
        n: paired items, or items per correlation.
        power: target power (default 0.8 when solving n or the effect).
        alpha, alternative: the test's level and direction ("greater", "two-sided", "less").
        sd_delta, pooled_sd: a pilot's sd of the differences and pooled sd of the scores.
        correlation: two correlations with the humans ``(r1, r2)``: the Fisher-z test of their
            difference.
        report: a pilot audit's report.json (path) or :class:`AuditReport`: per test its
            detectable effect and the n that finds ``effect`` (default: the report's margin).

    Returns:
        list of dict: what, solved ("n", "effect" or "power"), n, effect, power, note.
    """
    request = _probity.PowerRequest()
    request.effect, request.n, request.power = effect, n, power
    request.alpha, request.alternative = alpha, alternative
    request.sd_delta, request.pooled_sd = sd_delta, pooled_sd
    if correlation is not None:
        request.r1, request.r2 = correlation
    text = ""
    if isinstance(report, dict):
        text = json.dumps(report)
    elif report is not None:
        with open(os.fspath(report), encoding="utf-8") as f:
            text = f.read()
    return _probity.power(request, text)


def compare(scores, human, *, metrics=None, dimensions=None, correlation="spearman",
            permutations=1000, seed=0, threads=0):
    """Paired permutation test between two metrics' correlations with humans, as
    ``probity compare --json``.

    Args:
        scores: a mapping holding the two metrics' score arrays (e.g. :func:`score_dataset`
            output); with more entries, ``metrics`` names the two to compare.
        human: a :class:`Dataset`, a mapping dimension -> array, or one array.
        correlation: pearson, spearman or kendall.

    Returns:
        list of dict: per dimension, the ``results`` rows of ``probity compare --json``:
        dimension, n, correlation, <metric a>, <metric b> (their correlations), delta,
        p_two_sided, permutations.
    """
    columns, _ = _score_columns(scores)
    if metrics is not None:
        metrics = list(metrics)
        if len(metrics) != 2:
            raise UsageError("compare needs exactly two metrics")
        for m in metrics:
            if m not in columns:
                raise UsageError(f"metric '{m}' has no scores")
        columns = {m: columns[m] for m in metrics}
    if len(columns) != 2:
        raise UsageError("compare needs two metrics present in the scores")
    (name_a, a), (name_b, b) = columns.items()
    dims, human_cols = _human_columns(human, dimensions)
    rows = _stats.compare(a, b, human_cols, dims, correlation, permutations, seed, threads)
    return [{"dimension": dim, "n": n, "correlation": correlation, name_a: ra, name_b: rb,
             "delta": delta, "p_two_sided": p, "permutations": perms}
            for dim, n, ra, rb, delta, p, perms in rows]


# ---- audit -----------------------------------------------------------------------------------


def _codes(spec):
    if spec is None:
        return ["none"]
    if isinstance(spec, str):
        spec = spec.split(",")
    return [s.strip() for s in spec]


def _inputs(data):
    """The datasets to audit as the library takes them: file names, or Dataset objects (from
    files, from_pandas, from_records, a DataFrame) audited as they are in memory, each with the
    name its rows carry in the report."""
    if isinstance(data, (str, os.PathLike, Dataset)) or _is_frame(data):
        data = [data]
    out = []
    for i, d in enumerate(data):
        if _is_frame(d):
            d = _default_frame_dataset(d, "audit")
        if isinstance(d, Dataset):
            if d.path and not d.path.startswith("<") and os.path.isfile(d.path):
                out.append((d, d.path))
            else:
                name = re.sub(r"[^A-Za-z0-9_.-]+", "", os.path.basename(d.path or "")) or "data"
                out.append((d, f"{i}-{name}.jsonl"))
        elif isinstance(d, (str, os.PathLike)):
            out.append(os.fspath(d))
        else:
            raise TypeError(f"audit: expected Datasets, pandas DataFrames or file names, got "
                            f"{type(d).__name__} (build one with probity.Dataset.from_pandas)")
    return out


@_engine_function
def audit(self, data, metrics, degrade="all", manipulate="all", sample=None, seed=0,
          bootstrap=1000, out=None, threads=0, *, alpha=0.05, margin=0.1, test="t",
          confidence=0.95,
          skip_invalid=False, progress=None, suite=None, min_applied=30, dimensions=None):
    """Audits metrics, as ``probity audit``: human correlation, degradation and manipulation
    tests with effect sizes and Holm's correction.

    Args:
        data: dataset file(s), :class:`Dataset` object(s) (from files, ``Dataset.from_pandas``
            or ``Dataset.from_records``) or pandas DataFrames with the default column names
            (``task_id``, ``candidate``, ``reference``, ``human:<dimension>``, ...).
        metrics: metric names and/or Python callables ``fn(candidates, references) -> floats``
            (see :class:`PythonMetric`), called in batches of up to 256 items.
        degrade, manipulate: ``"all"``, ``"none"``/None, letter codes as ``"R,S,D"`` or a list.
        sample: candidates per dataset, sampled with the seed (0: all; None: all, or 200
            with a suite, as ``--sample``).
        seed: seed of every random step.
        bootstrap: resamples for the confidence intervals.
        out: directory for report.json, report.md, report.html and the resume cache
            (cache.sqlite). None: a temporary directory, no report files.
        threads: worker threads (0: all cores).
        progress: optional ``progress(stage, done, total)`` called between chunks of work.
        suite: a named protocol instead of ``degrade``/``manipulate``, as ``--suite``:
            ``"paper"`` or ``"paper:summarization"``, ``"paper:peer-review"``, ``"paper:qa"``.
        min_applied: a strategy is tested only with at least this many applied items
            (``--min-applied``).
        margin: the equivalence margin in d units (``--margin``): a manipulation ``resists``
            only when a rise of this size or more is ruled out, a degradation ``misses`` only
            when such a drop is ruled out; otherwise the test is ``inconclusive``.
        test: the paired test (``--test``): ``"t"``, ``"wilcoxon"`` (signed-rank) or
            ``"sign"``.
        dimensions: the human dimensions to correlate with (``--dimension``); None: every
            rating column, whose mean the scorecard reports.

    Returns:
        AuditReport: a ``dict`` with the content of report.json (``None`` where it has null),
        with ``to_pandas(table)`` and a notebook rendering. Render it with
        :func:`format_report`.
    """
    metrics = _metric_list(metrics)
    names = [m for m in metrics if isinstance(m, str)]
    python_metrics = [m for m in metrics if isinstance(m, PythonMetric)]
    kwargs = dict(python_metrics=python_metrics,
                  degradations=_codes(degrade), manipulations=_codes(manipulate),
                  suite=suite or "", dimensions=_names(dimensions, []), sample=sample, seed=seed, bootstrap=bootstrap,
                  min_applied=min_applied, alpha=alpha, margin=margin, test=test,
                  confidence=confidence, threads=threads,
                  skip_invalid=skip_invalid, run_id=uuid.uuid4().hex[:16], progress=progress)
    inputs = _inputs(data)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="probity-audit-") as tmp:
            return AuditReport(self._native.audit(inputs, names, out=tmp, write=False,
                                                  **kwargs))
    return AuditReport(self._native.audit(inputs, names, out=os.fspath(out), write=True,
                                          **kwargs))


# Keyword names of attack() that differ from the AttackOptions field they set (the CLI's flag).
_ATTACK_ALIASES = {"copy_source": "include_content"}


@_engine_function
def attack(self, data, metrics, *, sample=0, skip_invalid=False, lang="", strategy=None,
           budget=None, steps=None, beam=None, proposals=None, guard=None, families=None,
           family=None, copy_source=None, delta=None, program_length=None, programs=None,
           split=None, alpha=None, margin=None, bootstrap=None, confidence=None, min_applied=None, seed=None,
           threads=None, examples=None, tolerance=None, phrase_words=None,
           phrase_candidates=None, suffix_words=None, suffix_iterations=None,
           transfer_endpoint=None, fit=None):
    """Attacks metrics, as ``probity attack``: a search for content-free edits that raise each
    metric's score, per item under a query budget, and universal edit programs chosen on a
    seeded half of the tasks and tested on the other half (one-sided paired t, Holm); the
    replacement (master-key, null-model) and universal suffix families when selected.

    Args:
        data: a dataset file or a :class:`Dataset` object.
        metrics: metric names (``"chrf"``, ``"exec:python3 scorer.py,version=2"``,
            ``"http://127.0.0.1:8000/score"``) and/or Python callables
            ``fn(candidates, references[, sources]) -> floats`` (see :class:`PythonMetric`),
            called in batches of up to 256 texts. A ``scores:`` file cannot be attacked.
        sample: candidates, sampled with the seed as ``--sample`` (0: all).
        lang: the language of tasks without a ``lang`` field (``--lang``; "" detects it).
        strategy, budget, ..., fit: the options of ``probity attack``, named as its flags with
            underscores (``family`` and ``families`` alike); one per field of
            :class:`AttackOptions` (``copy_source`` sets ``include_content``). None: the
            library's default.

    Returns:
        AttackResult: a ``dict`` with attack.json of the run (``search_tasks``,
        ``held_out_tasks``, ``operators``, ``options``, and per metric ``metrics[i]``: success
        rate, best edits, held-out programs, replacements, suffixes; ``None`` where it has null),
        whose :meth:`AttackResult.text` gives the tables ``probity attack`` prints.
    """
    given = {k: v for k, v in locals().items()
             if k not in ("self", "data", "metrics", "sample", "skip_invalid", "lang")}
    if given["family"] is not None:
        if given["families"] is not None:
            raise UsageError("attack: give family or families, not both")
        given["families"] = given["family"]
    del given["family"]
    native = _probity.AttackOptions()  # the library's defaults, as the CLI's
    for name, value in given.items():
        if value is None:
            continue
        if name == "families":
            value = _names(value, [])
        setattr(native, _ATTACK_ALIASES.get(name, name), value)
    metrics = _metric_list(metrics)
    names = [m for m in metrics if isinstance(m, str)]
    python_metrics = [m for m in metrics if isinstance(m, PythonMetric)]
    inputs = _inputs(data)
    if len(inputs) != 1:
        raise UsageError("attack takes one dataset")
    document, text = self._native.attack(inputs[0], names, python_metrics=python_metrics,
                                         options=native, sample=sample,
                                         skip_invalid=skip_invalid, lang=lang, batch=_BATCH,
                                         run_id=uuid.uuid4().hex[:16])
    return AttackResult(document, text)


def _report_json(report):
    if isinstance(report, (str, os.PathLike)):
        with open(report, encoding="utf-8") as f:
            return f.read()
    return json.dumps(report)


def format_report(report, format="text", unicode=True):
    """Renders an audit report (the dict returned by :func:`audit`, or a report.json path).

    Args:
        format: ``"text"`` (the terminal tables of ``probity audit``), ``"markdown"``,
            ``"html"`` or ``"json"``.
        unicode: Unicode box drawing in text tables (False: ASCII, as ``--ascii``).
    """
    return _probity.render_report(_report_json(report), format, unicode)


class AttackResult(dict):
    """The result of :func:`attack`: the content of attack.json as a ``dict`` (docs/attack.md),
    with the tables ``probity attack`` prints: the per-item search and held-out programs, the
    replacement families, the universal suffixes and, for two or more metrics, the defense
    matrix."""

    def __init__(self, document, text):
        super().__init__(document)
        self._text = text

    def text(self):
        """The attack's tables as ``probity attack`` prints them (Unicode box drawing)."""
        return self._text

    def __str__(self):
        return self._text


class AuditReport(dict):
    """The report of :func:`audit`: the content of report.json as a ``dict`` (docs/report-json.md),
    with tables as pandas DataFrames (:meth:`to_pandas`) and a notebook rendering of the
    verdicts and correlations (``_repr_html_``)."""

    _TABLES = ("tests", "correlations", "examples", "datasets")

    def correlation_rows(self):
        """One dict per dataset x metric x dimension: dataset, metric, baseline, dimension, n,
        spearman (with spearman_lo, spearman_hi, spearman_p), kendall, pearson."""
        out = []
        for block in self.get("correlations") or []:
            for row in block.get("rows") or []:
                out.append({"dataset": block.get("dataset"), "metric": block.get("metric"),
                            "baseline": bool(block.get("baseline", False)), **row})
        return out

    def to_pandas(self, table="tests"):
        """One table of the report as a DataFrame (needs pandas).

        Args:
            table: ``"tests"`` (one row per dataset x metric x strategy: applied, mean_delta,
                p, p_holm, passed, passed_holm, d, ...), ``"correlations"`` (one row per
                dataset x metric x dimension), ``"examples"`` or ``"datasets"``.
        """
        import pandas as pd
        if table == "correlations":
            return pd.DataFrame(self.correlation_rows())
        if table not in self._TABLES:
            raise UsageError(f"unknown table '{table}' (tables: {', '.join(self._TABLES)})")
        rows = [dict(r) for r in self.get(table) or []]
        if table == "datasets":
            for r in rows:
                r["skipped"] = len(r.get("skipped") or [])
                r["dimensions"] = ", ".join(r.get("dimensions") or [])
        return pd.DataFrame(rows)

    @staticmethod
    def _number(v, digits=3):
        return "–" if v is None else f"{v:.{digits}f}"

    def _repr_html_(self):
        import html
        e = html.escape
        parts = ["<div class='probity-audit'>"]
        tests = self.get("tests") or []
        metrics = list(self.get("metrics") or [])
        codes = []
        for t in tests:
            if (t["kind"], t["code"]) not in codes:
                codes.append((t["kind"], t["code"]))
        for ds in self.get("datasets") or []:
            name = ds.get("name")
            parts.append(f"<h4>probity audit: {e(str(name))} ({ds.get('audited')} of "
                         f"{ds.get('candidates')} candidates)</h4>")
            # Verdicts: one row per metric, one column per strategy (Holm-corrected decision).
            by_key = {(t["metric"], t["kind"], t["code"]): t for t in tests
                      if t["dataset"] == name}
            if codes:
                head = "".join(
                    f"<th title='{e(k)}'>{'D' if k == 'degradation' else 'M'}:{e(c)}</th>"
                    for k, c in codes)
                parts.append(f"<table><tr><th>metric</th>{head}<th>passed</th></tr>")
                for m in metrics:
                    cells, passed, testable = [], 0, 0
                    for k, c in codes:
                        t = by_key.get((m, k, c))
                        if t is None:
                            cells.append("<td></td>")
                        elif not t.get("testable"):
                            cells.append("<td title='not testable'>–</td>")
                        else:
                            testable += 1
                            # The three-way outcome after Holm, as the scorecard counts it.
                            outcome = t.get("outcome_holm") or "inconclusive"
                            ok = outcome in ("detects", "resists")
                            passed += ok
                            mark = "✓" if ok else "?" if outcome == "inconclusive" else "✗"
                            tip = (f"{outcome}: mean Δ {self._number(t.get('mean_delta'))}, "
                                   f"p_holm {self._number(t.get('p_holm'), 4)}, "
                                   f"p_equiv_holm {self._number(t.get('p_equiv_holm'), 4)}, "
                                   f"n {t.get('applied')}")
                            cells.append(f"<td title='{e(tip)}'>{mark}</td>")
                    parts.append(f"<tr><td>{e(m)}</td>{''.join(cells)}"
                                 f"<td>{passed}/{testable}</td></tr>")
                parts.append("</table>")
            # Correlations with the human ratings.
            rows = [r for r in self.correlation_rows() if r["dataset"] == name]
            if rows:
                parts.append("<table><tr><th>metric</th><th>dimension</th><th>n</th>"
                             "<th>Spearman</th><th>95% CI</th><th>Kendall τ-b</th>"
                             "<th>Pearson</th></tr>")
                for r in rows:
                    metric = r["metric"] + (" (baseline)" if r["baseline"] else "")
                    ci = (f"[{self._number(r.get('spearman_lo'))}, "
                          f"{self._number(r.get('spearman_hi'))}]")
                    parts.append(
                        f"<tr><td>{e(metric)}</td><td>{e(str(r.get('dimension')))}</td>"
                        f"<td>{r.get('n')}</td><td>{self._number(r.get('spearman'))}</td>"
                        f"<td>{ci}</td><td>{self._number(r.get('kendall'))}</td>"
                        f"<td>{self._number(r.get('pearson'))}</td></tr>")
                parts.append("</table>")
        parts.append("</div>")
        return "".join(parts)


def write_report(report, out):
    """Writes report.json, report.md and report.html of an audit report into directory `out`."""
    _probity.write_report(_report_json(report), os.fspath(out))


# ---- LLM session ---------------------------------------------------------------------------------

@_engine_function
def configure_llm(self, config=None, *, base_url=None, model=None, api_key_env=None,
                  concurrency=None, cache=None, cache_mode=None, structured=None, server=None,
                  max_tokens=None, batch=None, batch_dir=None, budget_usd=None):
    """Connects probity to an OpenAI-compatible server, as the CLI's LLM flags do.

    ``config`` is a ``probity.toml`` (named endpoints per role: judge, oracle, perturber, lm);
    the keyword arguments override it like ``--llm-base-url``, ``--llm-model``,
    ``--llm-api-key-env`` (the NAME of the environment variable holding the key, never the key),
    ``--llm-concurrency``, ``--cache``, ``--cache-mode``, ``--llm-structured`` (``"schema"``,
    the default: each answer's JSON Schema is sent; ``"json"``; ``"off"``), ``--llm-server``
    (``"auto"``, ``"openai"``, ``"vllm"``, ``"sglang"``, ``"llamacpp"``, ``"ollama"``) and
    ``--llm-max-tokens`` (the longest answer of every role), ``--batch`` (``"openai"``,
    ``"anthropic"`` or ``"file"``: cache misses go out as batches at the batch price; ``"file"``
    writes them to ``batch_dir`` and raises :class:`BatchPending` naming the files to run and
    import), ``--batch-dir`` and ``--budget-usd``; what neither sets comes from
    ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and ``OPENAI_API_KEY`` as in the OpenAI clients (so
    ``configure_llm()`` alone uses them). Every metric created afterwards
    that uses a model (``llm-judge``, ``predictor=llm``, ``expert,llm=judge``, ``style=llm``)
    and :func:`audit` use this session; answers are cached in ``cache`` (SQLite), so a re-run
    makes no request::

        probity.configure_llm(base_url="http://127.0.0.1:8000/v1", model="qwen",
                              cache="llm-cache.sqlite")
        probity.score("llm-judge,scale=1-5", candidates, references)
        probity.llm_usage()["total"]["requests"]
    """
    self._native.configure_llm(
        config=str(config) if config else "", base_url=base_url, model=model,
        api_key_env=api_key_env, concurrency=concurrency,
        cache=str(cache) if cache else None, cache_mode=cache_mode, structured=structured,
        server=server, max_tokens=max_tokens, batch=batch,
        batch_dir=str(batch_dir) if batch_dir else None, budget_usd=budget_usd)


@_engine_function
def disconnect_llm(self):
    """Removes the LLM session; metrics that need a model then raise :class:`UsageError`."""
    self._native.disconnect_llm()


@_engine_function
def llm_usage(self):
    """The session's accounting (requests, cache hits, retries, failures, questions, re-asks,
    unparsed answers, tokens and cost per endpoint) as a dict, or None without a session."""
    text = self._native.llm_usage()
    return None if text is None else json.loads(text)


# ---- the LLM response cache -----------------------------------------------------------------------

def cache_stats(cache):
    """What an LLM response cache holds: ``entries``, ``bytes``, ``oldest`` and ``newest`` (Unix
    seconds), ``batches`` recorded by batch runs and ``open_batches`` not yet imported."""
    return _probity.cache_stats(str(cache))


def cache_batches(cache):
    """The batches runs submitted (``batch=``): one dict per batch with its ``id``, ``provider``,
    ``endpoint`` (role), ``status``, ``open``, ``requests``, ``completed``, ``failed``,
    ``estimated_cost_usd`` and ``cost_usd``, by submission time."""
    return list(_probity.cache_batches(str(cache)))


def cache_import(cache, files):
    """Loads batch results into ``cache``, as ``probity cache import`` does: vllm run-batch's and
    OpenAI's output and error files, Anthropic's results, or a :func:`cache_export` file. A
    failed line becomes that request's failure, counted (with its cause) by the next run that
    asks for it; the run after asks again. Returns the counts (``answers``, ``kept``,
    ``failures``, ``closed_batches``, ...). Raises :class:`InputError` naming file, line and
    field for a line of another kind."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    return _probity.cache_import(str(cache), [str(f) for f in files])


def cache_export(cache, out):
    """Writes every answer of ``cache`` to ``out`` as JSONL (key, body, created), in key order,
    atomically; returns how many. :func:`cache_import` reads it on another machine."""
    return _probity.cache_export(str(cache), str(out))


def cache_merge(cache, files):
    """Adds the answers and batch records of other cache files (a sharded run's) to ``cache``;
    answers already there are kept. Returns the counts."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    return _probity.cache_merge(str(cache), [str(f) for f in files])


# ---- engines -------------------------------------------------------------------------------------


class Engine:
    """An independent probity engine: its own LLM session, fitted predictors and registries.

    The module-level functions use one default engine; an ``Engine`` gives the same functions
    as methods, with state of its own. Calls on one engine are serialised (its predictors are
    shared by its metrics and refitted per dataset); two engines run in parallel from two
    threads::

        judge = probity.Engine(base_url="http://127.0.0.1:8000/v1", model="qwen")
        judge.score("llm-judge", candidates, references)
        probity.score("bleu", candidates, references)          # the default engine, offline

    Keyword arguments, when given, are those of :func:`configure_llm`.
    """

    def __init__(self, config=None, **llm):
        self._native = _probity.Engine()
        if config is not None or llm:
            self.configure_llm(config, **llm)


# The methods of every Engine: the functions above that run on an engine.
for _fn in _ENGINE_FUNCTIONS:
    setattr(Engine, _fn.__name__, _fn)
del _fn

# The engine of the module-level functions.
_default = Engine()

